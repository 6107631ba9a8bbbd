// A booking's participants and waivers on its page: who is coming (medical and dietary
// details shown to staff only), each person's waiver (signed online, collected on paper
// or missing), recording a paper waiver collected at the desk, sending the signing link,
// and opening a signed waiver to print.
import { html, useState, useEffect } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";
import { dateTime } from "../shared/format.js";
import { notify } from "./notices.js";

/** @typedef {import("../shared/api.js").Schemas} Schemas */
/** @typedef {import("../shared/api.js").Client} Client */

/**
 * Opens a signed waiver's printable page in a new window (fetched with the staff
 * member's sign-in, which a plain link would not carry).
 * @param {Client} api
 * @param {string} signatureId
 */
export async function openWaiver(api, signatureId) {
  const { data, error } = await api.GET("/api/v1/admin/waivers/signatures/{signatureId}/document", {
    params: { path: { signatureId } },
    parseAs: "text",
  });
  if (error || typeof data !== "string") {
    notify(t("waivers.printFailed"), "error");
    return;
  }
  // A copy has no address of its own: its stylesheet is this site's.
  const page = data.replaceAll('href="/ui/', `href="${location.origin}/ui/`);
  const url = URL.createObjectURL(new Blob([page], { type: "text/html" }));
  window.open(url, "_blank", "noopener");
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * @param {{api: Client, b: Schemas["BookingDetail"], tz: string, mayWrite: boolean, reload: () => Promise<void>}} props
 *   `reload` reads the booking again (its history shows what was done here)
 */
export function Waivers({ api, b, tz, mayWrite, reload }) {
  const [view, setView] = useState(/** @type {Schemas["AdminBookingWaivers"] | null} */ (null));
  const [paper, setPaper] = useState(/** @type {Schemas["RequiredWaiver"] | null} */ (null));
  const [busy, setBusy] = useState(false);

  async function load() {
    try {
      setView(await ok(api.GET("/api/v1/admin/waivers/booking/{bookingId}", { params: { path: { bookingId: b.bookingId } } })));
    } catch (e) {
      notify(e instanceof Error ? e.message : String(e), "error");
    }
  }
  useEffect(() => void load(), [b.bookingId, b.status, b.auditLog.length]);

  /** @param {string} request */
  async function remind(request) {
    setBusy(true);
    try {
      const sent = await ok(
        api.POST("/api/v1/admin/waivers/{waiverRequestId}/remind", { params: { path: { waiverRequestId: request } } }),
      );
      notify(sent.messageId ? t("waivers.linkSent", { email: sent.sentTo }) : t("waivers.linkHeld", { email: sent.sentTo }));
      await reload();
    } catch (e) {
      notify(e instanceof Error ? e.message : String(e), "error");
    }
    setBusy(false);
  }

  const people = b.participants;
  return html`<section aria-labelledby="b-waivers">
    <h2 id="b-waivers">${t("waivers.title")}</h2>
    ${people.length > 0
      ? html`<table class="bookings" data-testid="participants"><thead><tr>
          <th scope="col">${t("waivers.person")}</th><th scope="col">${t("wizard.participants.birth")}</th>
          <th scope="col">${t("wizard.participants.medical")}</th><th scope="col">${t("wizard.participants.dietary")}</th>
          <th scope="col">${t("wizard.participants.emergency")}</th></tr></thead>
          <tbody>${people.map(
            (p) => html`<tr><td>${p.firstName} ${p.lastName}${p.participantType ? html` <span class="muted">(${p.participantType})</span>` : null}</td>
              <td>${p.dateOfBirth ?? (p.ageAtBooking != null ? t("waivers.age", { n: p.ageAtBooking }) : "")}</td>
              <td>${p.medicalConditions ?? ""}</td><td>${p.dietaryRestrictions ?? ""}</td><td>${p.emergencyContact ?? ""}</td></tr>`,
          )}</tbody></table>`
      : html`<p class="muted">${t("waivers.noParticipants")}</p>`}
    ${!view
      ? html`<p aria-busy="true">${t("common.loading")}</p>`
      : !view.requiresWaiver && view.requiredWaivers.every((r) => r.status === "pending")
        ? html`<p class="muted">${t("waivers.notRequired")}</p>`
        : html`<p data-testid="waiver-summary">${view.allWaiversComplete
              ? html`<span class="badge">${t("waivers.complete")}</span>`
              : html`<span class="badge warn">${t("waivers.missing", { n: view.missingCount })}</span>
                  ${view.checkIn === "refuse" ? html` ${t("waivers.refuses")}` : html` ${t("waivers.warns")}`}`}</p>
          <table class="bookings" data-testid="waivers"><thead><tr><th scope="col">${t("waivers.person")}</th>
            <th scope="col">${t("day.status")}</th><th scope="col">${t("waivers.signer")}</th><th scope="col">${t("waivers.actions")}</th></tr></thead>
            <tbody>${view.requiredWaivers.map(
              (r) => html`<tr>
                <td>${r.participant.name ?? t("waivers.unnamed")}${r.participant.isMinor ? html` <span class="badge">${t("waiver.minor")}</span>` : null}</td>
                <td>${t(/** @type {any} */ (`waivers.status.${r.status}`))}${r.reminderSent
                  ? html`<br /><span class="muted">${t("waivers.reminded", { when: dateTime(r.reminderSent, tz) })}</span>`
                  : null}</td>
                <td>${r.signedBy ? html`${r.signedBy}<br /><span class="muted">${dateTime(r.signedAt ?? "", tz)}</span>` : ""}</td>
                <td class="buttons">${r.signatureId
                  ? html`<button type="button" onClick=${() => openWaiver(api, r.signatureId ?? "")}>${t("waivers.print")}</button>`
                  : mayWrite
                    ? html`<button type="button" disabled=${busy} onClick=${() => setPaper(r)}>${t("waivers.paper")}</button>
                        <button type="button" disabled=${busy} onClick=${() => remind(r.waiverRequestId)}>${t("waivers.sendLink")}</button>`
                    : null}</td>
              </tr>`,
            )}</tbody></table>`}
    ${paper
      ? html`<${PaperForm} key=${paper.waiverRequestId + (paper.participant.participantId ?? "")} api=${api} bookingId=${b.bookingId} request=${paper}
          done=${(/** @type {boolean} */ saved) => (setPaper(null), saved && reload())} />`
      : null}
  </section>`;
}

/**
 * Recording a paper waiver collected at the desk.
 * @param {{api: Client, bookingId: string, request: Schemas["RequiredWaiver"], done: (saved: boolean) => void}} props
 */
function PaperForm({ api, bookingId, request, done }) {
  const named = request.participant.participantId;
  const [form, setForm] = useState({ name: request.participant.name ?? "", signedBy: request.participant.name ?? "", reference: "", notes: "" });
  const [error, setError] = useState("");

  /** @param {Event} e */
  async function save(e) {
    e.preventDefault();
    try {
      await ok(
        api.POST("/api/v1/admin/waivers/manual", {
          body: {
            bookingId,
            ...(named ? { participantId: named } : { participantName: form.name.trim() }),
            signedInPerson: true,
            signedBy: form.signedBy.trim(),
            ...(form.reference.trim() ? { paperWaiverReference: form.reference.trim() } : {}),
            ...(form.notes.trim() ? { notes: form.notes.trim() } : {}),
          },
        }),
      );
      notify(t("waivers.paperSaved"));
      done(true);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  }

  /** @param {Partial<typeof form>} change */
  const set = (change) => setForm({ ...form, ...change });
  return html`<form class="fields" onSubmit=${save} aria-label=${t("waivers.paper")}>
    <h3>${t("waivers.paper")}</h3>
    ${named
      ? html`<p>${request.participant.name}</p>`
      : html`<label>${t("waivers.personName")}<input value=${form.name} required maxlength="201"
          onInput=${(/** @type {any} */ e) => set({ name: e.currentTarget.value })} /></label>`}
    <label>${t("waivers.signedBy")}<input value=${form.signedBy} required maxlength="200"
      onInput=${(/** @type {any} */ e) => set({ signedBy: e.currentTarget.value })} /></label>
    <label>${t("waivers.reference")}<input value=${form.reference} maxlength="100"
      onInput=${(/** @type {any} */ e) => set({ reference: e.currentTarget.value })} /></label>
    <label>${t("waivers.notes")}<textarea maxlength="2000"
      onInput=${(/** @type {any} */ e) => set({ notes: e.currentTarget.value })}>${form.notes}</textarea></label>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <div class="buttons"><button type="submit" class="primary">${t("waivers.paperSave")}</button>
      <button type="button" onClick=${() => done(false)}>${t("common.cancel")}</button></div>
  </form>`;
}
