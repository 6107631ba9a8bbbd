// A resource's time off (maintenance, holidays, private events): listed, added and
// removed. While it lasts nothing new that needs the resource is offered or taken; what
// is already booked then is kept and named, for staff to move or tell the customers.
import { html, useState, useEffect } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";
import { dateTime, instantAt } from "../shared/format.js";
import { notify } from "./notices.js";

/** @typedef {import("../shared/api.js").Schemas} Schemas */

const KINDS = /** @type {const} */ (["maintenance", "holiday", "closure", "event"]);

/**
 * @param {{api: import("../shared/api.js").Client, resource: Schemas["ResourceDto"], timeZone: string,
 *   mayWrite: boolean, onClose: () => void}} props
 */
export function TimeOff({ api, resource, timeZone, mayWrite, onClose }) {
  const id = resource.id;
  const [items, setItems] = useState(/** @type {Schemas["BlackoutDto"][]} */ ([]));
  const [form, setForm] = useState({ kind: "maintenance", from: "", until: "", reason: "" });
  const [kept, setKept] = useState("");
  const [error, setError] = useState("");
  const load = () =>
    ok(api.GET("/api/v1/admin/resources/{id}/blackouts", { params: { path: { id } } }))
      .then((b) => setItems(b.items))
      .catch((e) => setError(e.message));
  useEffect(() => void load(), [id]);

  /** @param {Event} e */
  async function add(e) {
    e.preventDefault();
    try {
      const made = await ok(api.POST("/api/v1/admin/resources/{id}/blackouts", {
        params: { path: { id } },
        body: {
          kind: /** @type {typeof KINDS[number]} */ (form.kind),
          startsAt: instantAt(form.from, timeZone),
          endsAt: instantAt(form.until, timeZone),
          ...(form.reason.trim() ? { reason: form.reason.trim() } : {}),
        },
      }));
      notify(t("res.timeOffSaved"));
      const list = made.warnings.map((w) => dateTime(w.startsAt, timeZone)).join(", ");
      setKept(list ? t("res.keepsBookings", { list }) : "");
      setForm({ kind: "maintenance", from: "", until: "", reason: "" });
      setError("");
      load();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  }

  /** @param {Schemas["BlackoutDto"]} b */
  async function remove(b) {
    try {
      await ok(api.DELETE("/api/v1/admin/resources/{id}/blackouts/{blackoutId}", {
        params: { path: { id, blackoutId: b.id } },
      }));
      notify(t("res.timeOffRemoved"));
      load();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  }

  return html`<section class="panel" aria-labelledby="time-off-title">
    <h2 id="time-off-title">${t("res.timeOffOf", { name: resource.name })}</h2>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    ${kept ? html`<p class="note" role="status">${kept}</p>` : null}
    ${items.length === 0 ? html`<p class="muted">${t("res.noTimeOff")}</p>` : null}
    <ul>${items.map(
      (b) => html`<li data-time-off=${b.kind}>${t(/** @type {any} */ (`res.kind.${b.kind}`))}:
        ${dateTime(b.startsAt, timeZone)} – ${dateTime(b.endsAt, timeZone)}${b.reason ? ` · ${b.reason}` : ""}
        ${mayWrite ? html` <button type="button" onClick=${() => remove(b)}>${t("res.endTimeOff")}</button>` : null}</li>`,
    )}</ul>
    ${mayWrite
      ? html`<form class="fields" onSubmit=${add} aria-label=${t("res.addTimeOff")}>
          <label>${t("res.kind")}<select value=${form.kind} onChange=${(/** @type {any} */ e) => setForm({ ...form, kind: e.currentTarget.value })}>
            ${KINDS.map((k) => html`<option value=${k}>${t(`res.kind.${k}`)}</option>`)}</select></label>
          <label>${t("res.from")}<input type="datetime-local" required value=${form.from}
            onInput=${(/** @type {any} */ e) => setForm({ ...form, from: e.currentTarget.value })} /></label>
          <label>${t("res.until")}<input type="datetime-local" required value=${form.until}
            onInput=${(/** @type {any} */ e) => setForm({ ...form, until: e.currentTarget.value })} /></label>
          <label>${t("res.reason")}<input maxlength="500" value=${form.reason}
            onInput=${(/** @type {any} */ e) => setForm({ ...form, reason: e.currentTarget.value })} /></label>
          <div class="buttons"><button type="submit" class="primary">${t("res.addTimeOff")}</button>
            <button type="button" onClick=${onClose}>${t("res.close")}</button></div>
        </form>`
      : html`<button type="button" onClick=${onClose}>${t("res.close")}</button>`}
  </section>`;
}
