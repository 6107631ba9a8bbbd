// The signing page (/book/{tenantId}/waivers/{bookingId}, the link in the booking's
// confirmation and reminders): the waiver in the signer's language, each person of the
// party with their waiver, signing for one (a parent or guardian for anyone under 18),
// and naming the people the booking does not list yet.
import { html, useState, useEffect, useRef } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";
import { dateTime, locale } from "../shared/format.js";
import { SignaturePad } from "../shared/signature-pad.js";

/** @typedef {import("../shared/api.js").Schemas} Schemas */
/** @typedef {import("../shared/api.js").Client} Client */

/** @param {unknown} e */
function message(e) {
  const f = /** @type {any} */ (e);
  if (f?.code === "ALREADY_SIGNED") return t("waiver.alreadySigned");
  if (f?.code === "WAIVER_NOT_FOUND") return t("waiver.noText");
  if (f?.code === "INVALID_TRANSITION") return t("waiver.closed");
  if (f?.code === "CONFLICT") return t("waiver.partyFull");
  return f instanceof Error ? f.message : String(f);
}

/** @param {{api: Client, bookingId: string}} props */
export function Waivers({ api, bookingId }) {
  const [status, setStatus] = useState(/** @type {Schemas["ParticipantsStatus"] | null} */ (null));
  const [error, setError] = useState("");
  const [signing, setSigning] = useState(/** @type {Schemas["ParticipantWaiverStatus"] | null} */ (null));
  const [notice, setNotice] = useState("");
  const heading = useRef(/** @type {HTMLHeadingElement | null} */ (null));

  async function load() {
    try {
      const r = await ok(
        api.GET("/api/v1/waivers/booking/{bookingId}/participants/status", {
          params: { path: { bookingId }, query: { locale: locale() } },
        }),
      );
      setStatus(r.data);
    } catch (e) {
      setError(/** @type {any} */ (e).status === 404 ? t("waiver.notFound") : message(e));
    }
  }
  useEffect(() => void load(), []);
  useEffect(() => heading.current?.focus(), [!!status]);

  if (error && !status) return html`<p class="error" role="alert">${error}</p>`;
  if (!status) return html`<p aria-busy="true">${t("common.loading")}</p>`;
  const waiver = status.waiver;
  return html`
    <h2 tabindex="-1" ref=${heading}>${t("waiver.title", { reference: status.bookingReference })}</h2>
    <p>${dateTime(status.startTime, status.timezone)}</p>
    ${!status.requiresWaiver && !waiver ? html`<p>${t("waiver.notNeeded")}</p>` : null}
    <p>${t("waiver.intro")}</p>
    ${waiver
      ? html`<h3>${t("waiver.text", { name: waiver.name, version: waiver.version })}</h3>
          <div class="waiver-text" tabindex="0" lang=${waiver.locale} data-testid="waiver-text">${waiver.content}</div>`
      : html`<p class="error">${t("waiver.noText")}</p>`}
    <p aria-live="polite" data-testid="progress"><strong>${status.allParticipantsSigned
      ? t("waiver.allSigned")
      : t("waiver.progress", { signed: status.signedCount, total: status.participantCount })}</strong></p>
    ${notice ? html`<p role="status">${notice}</p>` : null}
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <ul class="people">
      ${status.participants.map(
        (p) => html`<li>
          <strong>${p.participantName}</strong>
          ${p.isMinor ? html`<span class="badge">${t("waiver.minor")}</span>` : null}
          ${p.isSigned
            ? html`<span class="badge">${t("waiver.signedBy", { name: p.signedByName ?? "" })}</span>`
            : waiver
              ? html`<button type="button" onClick=${() => (setSigning(p), setNotice(""), setError(""))}>
                  ${t("waiver.signFor", { name: p.participantName })}</button>`
              : null}
        </li>`,
      )}
    </ul>
    ${signing && waiver
      ? html`<${SignForm} key=${signing.participantId} api=${api} bookingId=${bookingId} person=${signing} templateId=${waiver.id}
          done=${async (/** @type {string} */ text) => {
            setSigning(null);
            setNotice(text);
            await load();
          }} />`
      : null}
    ${status.unnamedPlaces > 0 && !status.allParticipantsSigned
      ? html`<${AddPerson} api=${api} bookingId=${bookingId} unnamed=${status.unnamedPlaces}
          added=${async () => { setNotice(""); await load(); }} />`
      : null}
  `;
}

/**
 * @param {{api: Client, bookingId: string, person: Schemas["ParticipantWaiverStatus"], templateId: string,
 *   done: (notice: string) => void}} props
 */
function SignForm({ api, bookingId, person, templateId, done }) {
  const minor = person.isMinor;
  const [form, setForm] = useState({ name: minor ? "" : person.participantName, email: "", relationship: "", agree: false });
  const [drawing, setDrawing] = useState(/** @type {string | null} */ (null));
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const first = useRef(/** @type {HTMLInputElement | null} */ (null));
  useEffect(() => first.current?.focus(), [person.participantId]);

  /** @param {Event} e */
  async function submit(e) {
    e.preventDefault();
    setBusy(true);
    setError("");
    try {
      await ok(
        api.POST("/api/v1/waivers/booking/{bookingId}/participants/{participantId}/sign", {
          params: { path: { bookingId, participantId: person.participantId } },
          body: {
            signedByName: form.name.trim(),
            signedByEmail: form.email.trim(),
            templateId,
            ...(drawing ? { signatureData: drawing } : {}),
            ...(minor ? { isGuardianSignature: true } : {}),
            ...(minor && form.relationship.trim() ? { guardianRelationship: form.relationship.trim() } : {}),
          },
        }),
      );
      done(t("waiver.signed"));
    } catch (err) {
      if (/** @type {any} */ (err).code === "ALREADY_SIGNED") done(t("waiver.alreadySigned"));
      else setError(message(err));
      setBusy(false);
    }
  }

  /** @param {Partial<typeof form>} change */
  const set = (change) => setForm({ ...form, ...change });
  return html`<form class="fields" onSubmit=${submit} aria-label=${t("waiver.signFor", { name: person.participantName })}>
    <h3>${t("waiver.signFor", { name: person.participantName })}</h3>
    <label>${minor ? t("waiver.guardianName") : t("waiver.signerName")}
      <input ref=${first} value=${form.name} required maxlength="200" autocomplete="name"
        onInput=${(/** @type {any} */ e) => set({ name: e.currentTarget.value })} /></label>
    <label>${t("waiver.email")}
      <input type="email" value=${form.email} required autocomplete="email"
        onInput=${(/** @type {any} */ e) => set({ email: e.currentTarget.value })} /></label>
    ${minor
      ? html`<label>${t("waiver.relationship", { name: person.participantName })}
          <input value=${form.relationship} maxlength="100"
            onInput=${(/** @type {any} */ e) => set({ relationship: e.currentTarget.value })} /></label>`
      : null}
    <${SignaturePad} onChange=${setDrawing} />
    <label class="check"><input type="checkbox" required checked=${form.agree}
      onChange=${(/** @type {any} */ e) => set({ agree: e.currentTarget.checked })} />
      ${minor ? t("waiver.agreeFor", { name: person.participantName }) : t("waiver.agree")}</label>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <button type="submit" class="primary" disabled=${busy}>${t("waiver.sign")}</button>
  </form>`;
}

/** @param {{api: Client, bookingId: string, unnamed: number, added: () => void}} props */
function AddPerson({ api, bookingId, unnamed, added }) {
  const [form, setForm] = useState({ firstName: "", lastName: "", dateOfBirth: "" });
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  /** @param {Event} e */
  async function submit(e) {
    e.preventDefault();
    setBusy(true);
    setError("");
    try {
      await ok(
        api.POST("/api/v1/waivers/booking/{bookingId}/participants", {
          params: { path: { bookingId } },
          body: {
            firstName: form.firstName.trim(),
            lastName: form.lastName.trim(),
            ...(form.dateOfBirth ? { dateOfBirth: form.dateOfBirth } : {}),
          },
        }),
      );
      setForm({ firstName: "", lastName: "", dateOfBirth: "" });
      added();
    } catch (err) {
      setError(message(err));
    }
    setBusy(false);
  }

  /** @param {Partial<typeof form>} change */
  const set = (change) => setForm({ ...form, ...change });
  return html`<form class="fields" onSubmit=${submit} aria-label=${t("waiver.addPerson")}>
    <h3>${t("waiver.addPerson")}</h3>
    <p>${t("waiver.unnamed", { n: unnamed })}</p>
    <label>${t("waiver.firstName")}<input value=${form.firstName} required maxlength="100"
      onInput=${(/** @type {any} */ e) => set({ firstName: e.currentTarget.value })} /></label>
    <label>${t("waiver.lastName")}<input value=${form.lastName} required maxlength="100"
      onInput=${(/** @type {any} */ e) => set({ lastName: e.currentTarget.value })} /></label>
    <label>${t("waiver.birth")}<input type="date" value=${form.dateOfBirth}
      onInput=${(/** @type {any} */ e) => set({ dateOfBirth: e.currentTarget.value })} /></label>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <button type="submit" disabled=${busy}>${t("waiver.add")}</button>
  </form>`;
}
