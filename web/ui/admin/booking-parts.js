// Parts of a booking's page: its notes (added, edited, deleted), and moving it to
// another time of the same product, checked before it is made.
import { html, useState, useEffect, useRef } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";
import { dateTime, time, longDate } from "../shared/format.js";
import { notify } from "./notices.js";

/** @typedef {import("../shared/api.js").Schemas} Schemas */

const CATEGORIES = /** @type {const} */ (["general", "special_request", "issue", "follow_up", "resolution"]);

/**
 * @param {object} props
 * @param {import("../shared/api.js").Client} props.api
 * @param {Schemas["BookingDetail"]} props.b
 * @param {string} props.tz
 * @param {boolean} props.mayWrite
 * @param {() => Promise<void>} props.reload
 */
export function Notes({ api, b, tz, mayWrite, reload }) {
  const [content, setContent] = useState("");
  const [category, setCategory] = useState(/** @type {typeof CATEGORIES[number]} */ ("general"));
  const [editing, setEditing] = useState(/** @type {{id: string, content: string} | null} */ (null));
  const bookingId = b.bookingId;

  /** @param {Promise<unknown>} call @param {string} done */
  async function run(call, done) {
    try {
      await call;
      notify(done);
      await reload();
      return true;
    } catch (e) {
      notify(e instanceof Error ? e.message : String(e), "error");
      return false;
    }
  }

  /** @param {Event} e */
  async function add(e) {
    e.preventDefault();
    const saved = await run(
      ok(api.POST("/api/v1/admin/bookings/{bookingId}/notes", { params: { path: { bookingId } }, body: { content, category, isInternal: true } })),
      t("notes.added"),
    );
    if (saved) setContent("");
  }

  return html`<section aria-labelledby="b-notes">
    <h2 id="b-notes">${t("notes.title")}</h2>
    ${b.notes.length === 0 ? html`<p class="muted">${t("notes.none")}</p>` : null}
    <ul class="notes">${b.notes.map(
      (n) => html`<li data-note=${n.noteId}>
        ${editing?.id === n.noteId
          ? html`<form class="row" onSubmit=${async (/** @type {Event} */ e) => {
              e.preventDefault();
              const saved = await run(
                ok(api.PATCH("/api/v1/admin/bookings/{bookingId}/notes/{noteId}", {
                  params: { path: { bookingId, noteId: n.noteId } },
                  body: { content: editing.content },
                })),
                t("notes.saved"),
              );
              if (saved) setEditing(null);
            }}>
              <label>${t("notes.text")}<textarea rows="2" value=${editing.content}
                onInput=${(/** @type {any} */ e) => setEditing({ id: n.noteId, content: e.currentTarget.value })}></textarea></label>
              <button type="submit" class="primary">${t("booking.save")}</button>
              <button type="button" onClick=${() => setEditing(null)}>${t("common.cancel")}</button>
            </form>`
          : html`<p>${n.content}</p>
            <p class="muted">${t(/** @type {any} */ (`notes.category.${n.category}`))} · ${n.createdByName} · ${dateTime(n.createdAt, tz)}</p>
            ${mayWrite
              ? html`<div class="buttons">
                  <button type="button" onClick=${() => setEditing({ id: n.noteId, content: n.content })}>${t("notes.edit")}</button>
                  <button type="button" class="danger" onClick=${() =>
                    run(ok(api.DELETE("/api/v1/admin/bookings/{bookingId}/notes/{noteId}", { params: { path: { bookingId, noteId: n.noteId } } })),
                      t("notes.deleted"))}>${t("notes.delete")}</button>
                </div>`
              : null}`}
      </li>`,
    )}</ul>
    ${mayWrite
      ? html`<form class="fields" onSubmit=${add}>
          <label>${t("notes.new")}<textarea rows="2" maxlength="5000" required value=${content}
            onInput=${(/** @type {any} */ e) => setContent(e.currentTarget.value)}></textarea></label>
          <label>${t("notes.kind")}<select value=${category} onChange=${(/** @type {any} */ e) => setCategory(e.currentTarget.value)}>
            ${CATEGORIES.map((c) => html`<option value=${c}>${t(`notes.category.${c}`)}</option>`)}
          </select></label>
          <button type="submit">${t("notes.add")}</button>
        </form>`
      : null}
  </section>`;
}

/**
 * Moving a booking: a day, a time of the same product with room, the check (conflicts
 * and warnings), then the move.
 * @param {object} props
 * @param {import("../shared/api.js").Client} props.api
 * @param {Schemas["BookingDetail"]} props.b
 * @param {Schemas["SiteDto"]} props.site
 * @param {(done: boolean) => void} props.onClose
 */
export function MoveBooking({ api, b, site, onClose }) {
  const tz = site.timezone;
  const [date, setDate] = useState(new Intl.DateTimeFormat("en-CA", { timeZone: tz }).format(new Date(b.slot.startTime)));
  const [slots, setSlots] = useState(/** @type {Schemas["AvailabilitySlot"][] | null} */ (null));
  const [chosen, setChosen] = useState(/** @type {Schemas["AvailabilitySlot"] | null} */ (null));
  const [check, setCheck] = useState(/** @type {Schemas["PrecheckResponse"] | null} */ (null));
  const [reason, setReason] = useState("");
  const [error, setError] = useState("");
  const key = useRef(crypto.randomUUID());
  const first = useRef(/** @type {HTMLInputElement | null} */ (null));
  useEffect(() => first.current?.focus(), []);

  useEffect(() => {
    setSlots(null);
    setChosen(null);
    setCheck(null);
    ok(api.GET("/api/v1/availability", {
      params: { query: { site_id: site.id, product_id: b.product.id, date_from: date, party_size: b.partySize } },
    }))
      .then((a) => setSlots(a.slots.filter((s) => s.slotId !== b.slot.slotId)))
      .catch((e) => setError(e.message));
  }, [date]);

  /** @param {Schemas["AvailabilitySlot"]} s */
  async function choose(s) {
    setChosen(s);
    setCheck(null);
    setError("");
    try {
      setCheck(await ok(api.POST("/api/v1/admin/calendar/precheck-move", { body: { booking_id: b.bookingId, new_slot_id: s.slotId } })));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }

  async function commit() {
    if (!chosen) return;
    try {
      await ok(api.POST("/api/v1/admin/calendar/commit-move", {
        params: { header: { "Idempotency-Key": key.current } },
        body: {
          booking_id: b.bookingId,
          new_slot_id: chosen.slotId,
          confirmed_override: (check?.soft_conflicts.length ?? 0) > 0,
          ...(reason.trim() ? { reason: reason.trim() } : {}),
        },
      }));
      notify(t("move.done", { when: `${longDate(date)} ${time(chosen.startsAt, tz)}` }));
      onClose(true);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }

  const conflicts = [...(check?.hard_conflicts ?? []), ...(check?.soft_conflicts ?? [])];
  return html`<div class="overlay"><div class="dialog" role="dialog" aria-modal="true" aria-labelledby="move-title">
    <h2 id="move-title">${t("move.title", { reference: b.bookingReference })}</h2>
    <label>${t("wizard.date")}<input ref=${first} type="date" value=${date}
      onChange=${(/** @type {any} */ e) => e.currentTarget.value && setDate(e.currentTarget.value)} /></label>
    ${slots && slots.length === 0 ? html`<p>${t("wizard.noSlots")}</p>` : null}
    ${slots
      ? html`<fieldset class="choices slots"><legend>${t("wizard.times")}</legend>${slots.map(
          (s) => html`<label class="choice"><input type="radio" name="move-slot" checked=${chosen?.slotId === s.slotId}
            onChange=${() => choose(s)} /><span><strong>${time(s.startsAt, tz)}</strong><br />
            <span class="muted">${t("book.left", { n: s.availableCapacity })}</span></span></label>`,
        )}</fieldset>`
      : html`<p aria-busy="true">${t("common.loading")}</p>`}
    ${check
      ? html`<div aria-live="polite" data-testid="precheck">
          ${conflicts.length === 0 && check.warnings.length === 0 ? html`<p>${t("move.clear")}</p>` : null}
          ${conflicts.map((c) => html`<p class=${c.severity === "hard" ? "error" : "note"}>${c.message}</p>`)}
          ${check.warnings.map((w) => html`<p class="note">${w.message}</p>`)}
        </div>`
      : null}
    <label>${t("move.reason")}<input value=${reason} maxlength="500" onInput=${(/** @type {any} */ e) => setReason(e.currentTarget.value)} /></label>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <div class="buttons">
      <button type="button" class="primary" disabled=${!check?.can_proceed} onClick=${commit}>${t("move.confirm")}</button>
      <button type="button" onClick=${() => onClose(false)}>${t("common.cancel")}</button>
    </div>
  </div></div>`;
}
