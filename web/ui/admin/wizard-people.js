// The wizard's people: the customer who books (name and email required) and the
// participants (first and last name required for each one named; the first is prefilled
// from the customer; the step may be skipped).
import { html, useState } from "../shared/ui.js";
import { t } from "../shared/i18n.js";

/** @typedef {import("./wizard.js").StepProps} StepProps */
/** @typedef {import("../shared/api.js").Schemas} Schemas */

/**
 * A text field bound to one property of an object.
 * @param {object} props
 * @param {string} props.label
 * @param {string} props.value
 * @param {(v: string) => void} props.set
 * @param {string} [props.type]
 * @param {boolean} [props.required]
 * @param {string} [props.autocomplete]
 * @param {boolean} [props.multiline]
 */
function Field({ label, value, set, type = "text", required = false, autocomplete, multiline = false }) {
  const onInput = (/** @type {any} */ e) => set(e.currentTarget.value);
  return html`<label>
    ${label}
    ${multiline
      ? html`<textarea rows="2" maxlength="2000" value=${value} onInput=${onInput}></textarea>`
      : html`<input type=${type} value=${value} required=${required} autocomplete=${autocomplete} onInput=${onInput} />`}
  </label>`;
}

/** Why staff create a booking (spec Part A 4.2). */
const REASONS = ["phone_booking", "walk_in", "comp", "correction", "other"];

/** @param {StepProps} props */
export function CustomerStep({ draft, update, next }) {
  const c = draft.customer;
  /** @param {Partial<typeof c>} change */
  const set = (change) => update({ customer: { ...c, ...change } });
  const s = draft.staff;
  /** @param {Partial<typeof s>} change */
  const setStaff = (change) => update({ staff: { ...s, ...change } });
  return html`
    <form class="fields" onSubmit=${(/** @type {Event} */ e) => (e.preventDefault(), next())}>
      <${Field} label=${t("wizard.customer.name")} value=${c.name} required autocomplete="off"
        set=${(/** @type {string} */ name) => set({ name })} />
      <${Field} label=${t("wizard.customer.email")} type="email" value=${c.email} required autocomplete="off"
        set=${(/** @type {string} */ email) => set({ email })} />
      <${Field} label=${t("wizard.customer.phone")} type="tel" value=${c.phone} autocomplete="off"
        set=${(/** @type {string} */ phone) => set({ phone })} />
      <${Field} label=${t("wizard.customer.requests")} value=${c.specialRequests} multiline
        set=${(/** @type {string} */ specialRequests) => set({ specialRequests })} />
      <fieldset>
        <legend>${t("wizard.staff")}</legend>
        <label>
          ${t("wizard.reason")}
          <select value=${s.createdReason} onChange=${(/** @type {any} */ e) => setStaff({ createdReason: e.currentTarget.value })}>
            ${REASONS.map((r) => html`<option value=${r}>${t(/** @type {any} */ (`wizard.reason.${r}`))}</option>`)}
          </select>
        </label>
        <${Field} label=${t("wizard.adminNotes")} value=${s.adminNotes} multiline
          set=${(/** @type {string} */ adminNotes) => setStaff({ adminNotes })} />
        <label class="check"><input type="checkbox" checked=${s.termsAccepted}
          onChange=${(/** @type {any} */ e) => setStaff({ termsAccepted: e.currentTarget.checked })} />
          ${t("wizard.terms")}</label>
        <label class="check"><input type="checkbox" checked=${s.sendEmail}
          onChange=${(/** @type {any} */ e) => setStaff({ sendEmail: e.currentTarget.checked })} />
          ${t("wizard.sendEmail")}</label>
      </fieldset>
      <button type="submit" class="primary">${t("wizard.next")}</button>
    </form>
  `;
}

/** @returns {Schemas["Participant"]} */
function blank() {
  return { firstName: "", lastName: "" };
}

/** @param {StepProps} props */
export function ParticipantsStep({ draft, update, next }) {
  const [rows, setRows] = useState(() => {
    if (draft.participants.length > 0) return draft.participants;
    const [first, ...rest] = draft.customer.name.trim().split(/\s+/);
    /** @type {Schemas["Participant"][]} */
    const list = Array.from({ length: draft.partySize }, blank);
    list[0] = { firstName: first ?? "", lastName: rest.join(" "), email: draft.customer.email, phone: draft.customer.phone };
    return list;
  });
  const [error, setError] = useState("");

  /** @param {number} i @param {Partial<Schemas["Participant"]>} change */
  const set = (i, change) =>
    setRows(rows.map((r, j) => (j === i ? /** @type {Schemas["Participant"]} */ ({ ...r, ...change }) : r)));

  /** @param {Event} e */
  function save(e) {
    e.preventDefault();
    const named = rows.filter((r) => Object.values(r).some((v) => typeof v === "string" && v.trim() !== ""));
    const incomplete = named.findIndex((r) => !r.firstName?.trim() || !r.lastName?.trim());
    if (incomplete >= 0) {
      setError(t("wizard.participants.names"));
      return;
    }
    update({ participants: named });
    next();
  }

  return html`
    <form onSubmit=${save}>
      <p class="muted">${t("wizard.participants.help")}</p>
      ${rows.map(
        (r, i) => html`<fieldset class="participant">
          <legend>${t("wizard.participants.person", { n: i + 1 })}</legend>
          <div class="row">
            <${Field} label=${t("wizard.participants.first")} value=${r.firstName ?? ""}
              set=${(/** @type {string} */ v) => set(i, { firstName: v })} />
            <${Field} label=${t("wizard.participants.last")} value=${r.lastName ?? ""}
              set=${(/** @type {string} */ v) => set(i, { lastName: v })} />
            <${Field} label=${t("wizard.participants.birth")} type="date" value=${r.dateOfBirth ?? ""}
              set=${(/** @type {string} */ v) => set(i, { dateOfBirth: v || null })} />
          </div>
          <details>
            <summary>${t("wizard.participants.more")}</summary>
            <div class="row">
              <${Field} label=${t("wizard.customer.email")} type="email" value=${r.email ?? ""}
                set=${(/** @type {string} */ v) => set(i, { email: v || null })} />
              <${Field} label=${t("wizard.customer.phone")} type="tel" value=${r.phone ?? ""}
                set=${(/** @type {string} */ v) => set(i, { phone: v || null })} />
              <${Field} label=${t("wizard.participants.emergency")} value=${r.emergencyContact ?? ""}
                set=${(/** @type {string} */ v) => set(i, { emergencyContact: v || null })} />
            </div>
            <div class="row">
              <${Field} label=${t("wizard.participants.dietary")} value=${r.dietaryRestrictions ?? ""}
                set=${(/** @type {string} */ v) => set(i, { dietaryRestrictions: v || null })} />
              <${Field} label=${t("wizard.participants.medical")} value=${r.medicalConditions ?? ""}
                set=${(/** @type {string} */ v) => set(i, { medicalConditions: v || null })} />
              <${Field} label=${t("wizard.customer.requests")} value=${r.specialRequests ?? ""}
                set=${(/** @type {string} */ v) => set(i, { specialRequests: v || null })} />
            </div>
          </details>
        </fieldset>`,
      )}
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      <div class="buttons">
        <button type="submit" class="primary">${t("wizard.next")}</button>
        <button type="button" onClick=${() => (update({ participants: [] }), next())}>
          ${t("wizard.participants.skip")}</button>
      </div>
    </form>
  `;
}
