// Where the money goes (owners only, `admin:payments:manage`): the card (Stripe) and
// bank (Paytrail) accounts, shown by their hints and never their secrets, replaced or
// removed; and the tenant's cancellation fee when customers cancel.
import { html, useState, useEffect } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";
import { notify } from "./notices.js";

/** @typedef {import("../shared/api.js").Schemas} Schemas */

/** @param {import("./main.js").PageContext} props */
export function Payments({ api }) {
  const [list, setList] = useState(/** @type {Schemas["CredentialsList"] | null} */ (null));
  const [policy, setPolicy] = useState(/** @type {Record<string, any> | null} */ (null));
  const [form, setForm] = useState(/** @type {Record<string, any> | null} */ (null));
  const [error, setError] = useState("");
  const load = () =>
    Promise.all([ok(api.GET("/api/v1/admin/payments/credentials")), ok(api.GET("/api/v1/admin/payments/refund-policy"))])
      .then(([c, p]) => (setList(c), setPolicy({ ...p })))
      .catch((e) => setError(e.message));
  useEffect(() => void load(), []);

  /** @param {Promise<unknown>} call */
  async function run(call) {
    try {
      await call;
      notify(t("setup.saved"));
      setForm(null);
      setError("");
      load();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }

  /** @param {Event} e */
  function saveAccount(e) {
    e.preventDefault();
    const v = /** @type {Record<string, any>} */ (form);
    run(ok(api.PUT("/api/v1/admin/payments/credentials/{provider}", {
      params: { path: { provider: v.provider } },
      body: {
        secretKey: v.secretKey,
        ...(v.provider === "cardpay"
          ? { webhookSecret: v.webhookSecret, ...(v.publishableKey ? { publishableKey: v.publishableKey } : {}) }
          : { merchantId: v.merchantId }),
        sandbox: !!v.sandbox,
      },
    })));
  }

  /** @param {Event} e */
  function savePolicy(e) {
    e.preventDefault();
    const p = /** @type {Record<string, any>} */ (policy);
    run(ok(api.PUT("/api/v1/admin/payments/refund-policy", {
      body: {
        feeType: p.feeType,
        ...(p.feeType === "flat" ? { flatFee: Number(p.flatFee) } : {}),
        ...(p.feeType === "percentage" ? { percentage: Number(p.percentage) } : {}),
      },
    })));
  }

  return html`
    <h1>${t("pay.title")}</h1>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <section aria-labelledby="accounts-title">
      <h2 id="accounts-title">${t("pay.accounts")}</h2>
      ${list && list.credentials.length === 0 ? html`<p class="muted">${t("pay.none")}</p>` : null}
      <table class="bookings list"><thead><tr><th scope="col">${t("pay.provider")}</th><th scope="col">${t("pay.scope")}</th>
        <th scope="col">${t("pay.key")}</th><th scope="col">${t("pay.mode")}</th><th scope="col"></th></tr></thead>
        <tbody>${(list?.credentials ?? []).map(
          (c) => html`<tr data-account=${c.provider}><td>${t(/** @type {any} */ (`pay.provider.${c.provider}`))}</td>
            <td>${c.scope === "site" ? t("pay.site") : t("pay.tenant")}</td><td><code>${c.secretKeyHint}</code>${c.publishableKey
              ? html` · <code>${c.publishableKey.slice(0, 12)}…</code>` : null}</td>
            <td>${c.sandbox ? t("pay.sandbox") : t("pay.live")}${c.enabled ? "" : ` · ${t("pay.off")}`}</td>
            <td><button type="button" class="danger" onClick=${() =>
              run(ok(api.DELETE("/api/v1/admin/payments/credentials/{provider}", { params: { path: { provider: c.provider } } })))}>
              ${t("pay.remove")}</button></td></tr>`,
        )}</tbody></table>
      <div class="buttons">
        <button type="button" onClick=${() => setForm({ provider: "cardpay", secretKey: "", webhookSecret: "", publishableKey: "", sandbox: false })}>${t("pay.setCard")}</button>
        <button type="button" onClick=${() => setForm({ provider: "bankpay", secretKey: "", merchantId: "", sandbox: false })}>${t("pay.setBank")}</button>
      </div>
      ${form
        ? html`<form class="fields panel" onSubmit=${saveAccount} aria-label=${t(/** @type {any} */ (`pay.provider.${form.provider}`))}>
            <p class="muted">${t(/** @type {any} */ (`pay.help.${form.provider}`))}</p>
            ${form.provider === "bankpay"
              ? html`<label>${t("pay.merchant")}<input required value=${form.merchantId} onInput=${(/** @type {any} */ e) => setForm({ ...form, merchantId: e.currentTarget.value })} /></label>`
              : null}
            <label>${t("pay.secret")}<input type="password" required autocomplete="off" value=${form.secretKey}
              onInput=${(/** @type {any} */ e) => setForm({ ...form, secretKey: e.currentTarget.value })} /></label>
            ${form.provider === "cardpay"
              ? html`<label>${t("pay.webhook")}<input type="password" required autocomplete="off" value=${form.webhookSecret}
                  onInput=${(/** @type {any} */ e) => setForm({ ...form, webhookSecret: e.currentTarget.value })} /></label>
                <label>${t("pay.publishable")}<input autocomplete="off" placeholder="pk_live_…" value=${form.publishableKey}
                  onInput=${(/** @type {any} */ e) => setForm({ ...form, publishableKey: e.currentTarget.value })} /></label>`
              : null}
            <label class="check"><input type="checkbox" checked=${form.sandbox}
              onChange=${(/** @type {any} */ e) => setForm({ ...form, sandbox: e.currentTarget.checked })} />${t("pay.useSandbox")}</label>
            <div class="buttons"><button type="submit" class="primary">${t("booking.save")}</button>
              <button type="button" onClick=${() => setForm(null)}>${t("common.cancel")}</button></div>
          </form>`
        : null}
    </section>
    ${policy
      ? html`<section aria-labelledby="policy-title">
          <h2 id="policy-title">${t("pay.policy")}</h2>
          <form class="fields" onSubmit=${savePolicy} aria-label=${t("pay.policy")}>
            <fieldset class="choices"><legend>${t("pay.feeIs")}</legend>
              ${["time_based", "flat", "percentage"].map(
                (f) => html`<label class="choice"><input type="radio" name="fee" checked=${policy.feeType === f}
                  onChange=${() => setPolicy({ ...policy, feeType: f })} /><span>${t(/** @type {any} */ (`pay.fee.${f}`))}</span></label>`,
              )}
            </fieldset>
            ${policy.feeType === "flat"
              ? html`<label>${t("pay.flat")}<input type="number" min="0" required value=${policy.flatFee ?? ""}
                  onInput=${(/** @type {any} */ e) => setPolicy({ ...policy, flatFee: e.currentTarget.value })} /></label>`
              : null}
            ${policy.feeType === "percentage"
              ? html`<label>${t("pay.percentage")}<input type="number" min="0" max="100" required value=${policy.percentage ?? ""}
                  onInput=${(/** @type {any} */ e) => setPolicy({ ...policy, percentage: e.currentTarget.value })} /></label>`
              : null}
            <button type="submit" class="primary">${t("booking.save")}</button>
          </form>
        </section>`
      : null}
  `;
}
