// Sign-in: the full page before a session, and the dialog over the page when the token
// has expired (the page underneath keeps its state and the interrupted request is sent
// again once signed in).
import { html, useState } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { apiClient, ok, ApiFailure } from "../shared/api.js";
import { rememberedTenant } from "./session.js";

/** @typedef {import("./session.js").Session} Session */

/**
 * Signs in with the admin login.
 * @param {string} tenant
 * @param {string} username
 * @param {string} password
 * @returns {Promise<Session>}
 */
async function signIn(tenant, username, password) {
  const client = apiClient({ tenant: () => tenant });
  const answer = await ok(
    client.POST("/api/auth/login", { body: { tenantId: tenant, username, password } }),
  );
  return {
    token: answer.access_token,
    expiresAt: Date.now() + answer.expires_in * 1000,
    tenant,
    userId: answer.user.id,
    username: answer.user.username,
    permissions: answer.user.permissions,
  };
}

/**
 * @param {object} props
 * @param {(session: Session) => void} props.onSignedIn
 * @param {Session | null} [props.expired] the session that ran out: same venue and user
 * @param {() => void} [props.onCancel]
 */
export function SignIn({ onSignedIn, expired, onCancel }) {
  const [tenant, setTenant] = useState(expired?.tenant ?? rememberedTenant());
  const [username, setUsername] = useState(expired?.username ?? "");
  const [password, setPassword] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  /** @param {Event} e */
  async function submit(e) {
    e.preventDefault();
    setBusy(true);
    setError("");
    try {
      onSignedIn(await signIn(tenant.trim(), username.trim(), password));
    } catch (err) {
      const f = err instanceof ApiFailure ? err : null;
      setError(
        f?.status === 401 || f?.status === 404 || f?.status === 400
          ? t("signin.failed")
          : f?.status === 429
            ? t("signin.tooMany")
            : f?.status === 0
              ? t("error.network")
            : (f?.message ?? String(err)),
      );
      setBusy(false);
    }
  }

  const form = html`
    <form class="signin" onSubmit=${submit} aria-labelledby="signin-title">
      <h1 id="signin-title">${t("signin.title")}</h1>
      ${expired ? html`<p>${t("signin.again")}</p>` : null}
      <label>
        ${t("signin.tenant")}
        <input name="tenant" required autocomplete="organization" value=${tenant}
          readonly=${!!expired} onInput=${(/** @type {any} */ e) => setTenant(e.currentTarget.value)} />
      </label>
      <label>
        ${t("signin.username")}
        <input name="username" required autocomplete="username" value=${username}
          onInput=${(/** @type {any} */ e) => setUsername(e.currentTarget.value)} />
      </label>
      <label>
        ${t("signin.password")}
        <input name="password" type="password" required autocomplete="current-password"
          value=${password} onInput=${(/** @type {any} */ e) => setPassword(e.currentTarget.value)} />
      </label>
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      <div class="buttons">
        <button type="submit" class="primary" disabled=${busy}>${t("signin.submit")}</button>
        ${onCancel ? html`<button type="button" onClick=${onCancel}>${t("signin.signout")}</button>` : null}
      </div>
    </form>
  `;
  if (!expired) return html`<main class="signin-page">${form}</main>`;
  return html`<div class="overlay"><div class="dialog" role="dialog" aria-modal="true"
    aria-labelledby="signin-title">${form}</div></div>`;
}
