// Cancelling a booking as staff: the reason, then what the customer gets back (the
// preview the API works out, nothing changed yet), then the cancellation with its refund.
import { html, useState, useEffect, useRef } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";
import { moneyMinor } from "../shared/format.js";
import { can } from "./session.js";
import { notify } from "./notices.js";

/** @typedef {import("../shared/api.js").Schemas} Schemas */

/** The reasons staff choose from (reduced_party_size is a different action). */
const REASONS = /** @type {const} */ ([
  "customer_request",
  "admin_initiated",
  "weather",
  "equipment_failure",
  "capacity_issue",
  "customer_no_show",
  "duplicate",
]);

/**
 * @param {object} props
 * @param {import("../shared/api.js").Client} props.api
 * @param {import("./session.js").Session} props.session
 * @param {{bookingId: string, bookingReference: string}} props.booking
 * @param {string} props.currency
 * @param {(done: boolean) => void} props.onClose
 */
export function CancelDialog({ api, session, booking, currency, onClose }) {
  const [reason, setReason] = useState(/** @type {typeof REASONS[number]} */ ("customer_request"));
  const [notes, setNotes] = useState("");
  const [notifyCustomer, setNotifyCustomer] = useState(true);
  const [override, setOverride] = useState(false);
  const [preview, setPreview] = useState(
    /** @type {(Schemas["CancelPreview"] & {reason: string}) | null} */ (null),
  );
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  // One key per dialog: pressing the button again after a lost answer cancels once.
  const key = useRef(crypto.randomUUID());
  const first = useRef(/** @type {HTMLSelectElement | null} */ (null));
  const mayOverride = can(session, "admin:cancellations:override");
  const path = { bookingId: booking.bookingId };

  function body() {
    return {
      reason,
      notifyCustomer,
      ...(notes.trim() ? { cancellationNotes: notes.trim() } : {}),
      ...(override ? { overridePolicy: true } : {}),
    };
  }

  useEffect(() => first.current?.focus(), []);
  useEffect(() => {
    /** @param {KeyboardEvent} e */
    const onKey = (e) => e.key === "Escape" && !busy && onClose(false);
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, [busy]);

  // The preview of the choices as they are now: an answer to earlier choices is dropped.
  const asked = useRef(0);
  useEffect(() => {
    const n = ++asked.current;
    setPreview(null);
    setError("");
    if (override && !notes.trim()) return;
    ok(api.POST("/api/v1/admin/bookings/{bookingId}/cancel/preview", { params: { path }, body: body() }))
      .then((p) => n === asked.current && setPreview({ ...p, reason }))
      .catch((e) => n === asked.current && setError(e.message));
  }, [reason, override, notes.trim() === ""]);

  /** @param {Event} e */
  async function submit(e) {
    e.preventDefault();
    setBusy(true);
    setError("");
    try {
      const done = await ok(
        api.POST("/api/v1/admin/bookings/{bookingId}/cancel", {
          params: { path, header: { "Idempotency-Key": key.current } },
          body: body(),
        }),
      );
      notify(
        done.refundAmount > 0
          ? t("cancel.done", { reference: booking.bookingReference, refund: moneyMinor(done.refundAmount, currency) })
          : t("cancel.doneNoRefund", { reference: booking.bookingReference }),
      );
      onClose(true);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      setBusy(false);
    }
  }

  return html`
    <div class="overlay">
      <form class="dialog" role="dialog" aria-modal="true" aria-labelledby="cancel-title" onSubmit=${submit}>
        <h2 id="cancel-title">${t("cancel.title", { reference: booking.bookingReference })}</h2>
        <label>
          ${t("cancel.reason")}
          <select ref=${first} value=${reason}
            onChange=${(/** @type {any} */ e) => setReason(e.currentTarget.value)}>
            ${REASONS.map((r) => html`<option value=${r}>${t(`cancel.reason.${r}`)}</option>`)}
          </select>
        </label>
        <label>
          ${t("cancel.notes")}
          <textarea rows="2" maxlength="2000" value=${notes} required=${override}
            onInput=${(/** @type {any} */ e) => setNotes(e.currentTarget.value)}></textarea>
        </label>
        <label class="check">
          <input type="checkbox" checked=${notifyCustomer}
            onChange=${(/** @type {any} */ e) => setNotifyCustomer(e.currentTarget.checked)} />
          ${t("cancel.notify")}
        </label>
        ${mayOverride
          ? html`<label class="check">
              <input type="checkbox" checked=${override}
                onChange=${(/** @type {any} */ e) => setOverride(e.currentTarget.checked)} />
              ${t("cancel.override")}
            </label>`
          : null}
        <section aria-labelledby="preview-title" aria-live="polite">
          <h3 id="preview-title">${t("cancel.preview")}</h3>
          ${preview
            ? html`<dl class="figures" data-testid="cancel-preview" data-reason=${preview.reason}>
                <dt>${t("cancel.paid")}</dt><dd>${moneyMinor(preview.paidAmount, currency)}</dd>
                <dt>${t("cancel.fee")}</dt><dd>${moneyMinor(preview.cancellationFee, currency)}</dd>
                <dt>${t("cancel.refund")}</dt><dd><strong>${moneyMinor(preview.refundAmount, currency)}</strong></dd>
                <dt>${t("cancel.rule")}</dt><dd>${preview.rule}</dd>
              </dl>`
            : error
              ? null
              : html`<p aria-busy="true">${t("common.loading")}</p>`}
        </section>
        ${error ? html`<p class="error" role="alert">${error}</p>` : null}
        <div class="buttons">
          <button type="submit" class="danger" disabled=${busy || !preview}>${t("cancel.confirm")}</button>
          <button type="button" disabled=${busy} onClick=${() => onClose(false)}>${t("cancel.keep")}</button>
        </div>
      </form>
    </div>
  `;
}
