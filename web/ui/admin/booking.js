// A booking's page: customer (editable), slot, price, payments and refunds, participants
// and waivers (booking-waivers.js), notes, issues
// and its history (the audit log, booking-history.js), with the actions its status allows: confirm a hold,
// mark paid, arrived, completed or no-show (with the tenant's fee), move it to another
// time (checked first), cancel it (the refund shown first).
import { html, useState, useEffect } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";
import { money, dateTime } from "../shared/format.js";
import { can } from "./session.js";
import { notify } from "./notices.js";
import { statusName } from "./day-sheet.js";
import { CancelDialog } from "./cancel-dialog.js";
import { Notes, MoveBooking } from "./booking-parts.js";
import { History } from "./booking-history.js";
import { Waivers } from "./booking-waivers.js";

/** @typedef {import("../shared/api.js").Schemas} Schemas */

/** What staff may do by status (the status table of Part A 3.1). */
const ACTIONS = /** @type {Record<string, string[]>} */ ({
  hold: ["confirm", "move", "cancel"],
  tentative: ["mark_paid", "mark_no_show", "move", "cancel"],
  confirmed: ["mark_arrived", "mark_no_show", "move", "cancel"],
  part_paid: ["mark_paid", "mark_no_show", "move", "cancel"],
  paid: ["mark_arrived", "mark_no_show", "move", "cancel"],
  arrived: ["mark_completed", "mark_no_show"],
  no_show: ["mark_arrived"],
});

/** @param {import("./main.js").PageContext & {id: string}} props */
export function Booking({ api, session, id, go }) {
  const [b, setB] = useState(/** @type {Schemas["BookingDetail"] | null} */ (null));
  const [site, setSite] = useState(/** @type {Schemas["SiteDto"] | null} */ (null));
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const [dialog, setDialog] = useState(/** @type {"cancel" | "move" | "customer" | null} */ (null));
  const [fee, setFee] = useState(true);

  async function load() {
    try {
      const detail = await ok(api.GET("/api/v1/admin/bookings/{id}", { params: { path: { id } } }));
      setB(detail);
      if (!site || site.id !== detail.site.id) {
        setSite(await ok(api.GET("/api/v1/admin/sites/{id}", { params: { path: { id: detail.site.id } } })));
      }
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }
  useEffect(() => void load(), [id]);

  if (error && !b) return html`<p class="error" role="alert">${error}</p>`;
  if (!b || !site) return html`<p aria-busy="true">${t("common.loading")}</p>`;
  const tz = site.timezone;
  const cur = b.price.currency;
  const mayWrite = can(session, "admin:bookings:write");

  /** @param {string} action */
  async function act(action) {
    if (!b) return;
    if (action === "cancel" || action === "move") {
      setDialog(action);
      return;
    }
    setBusy(true);
    try {
      const path = { id };
      if (action === "confirm") {
        await ok(api.POST("/api/v1/bookings/{id}/confirm", { params: { path }, body: { pricingHash: b.pricingHash, paymentMethod: "poa" } }));
      } else if (action === "mark_paid") {
        await ok(api.POST("/api/v1/bookings/{id}/mark-paid", { params: { path } }));
      } else if (action === "mark_arrived") {
        const arrived = await ok(api.POST("/api/v1/bookings/{id}/mark-arrived", { params: { path } }));
        for (const warning of arrived.warnings ?? []) notify(t("waivers.arrivedMissing", { warning }));
      } else if (action === "mark_completed") {
        await ok(api.PATCH("/api/v1/admin/bookings/{id}/status", { params: { path }, body: { status: "completed" } }));
      } else if (action === "mark_no_show") {
        await ok(
          api.POST("/api/v1/admin/bookings/{bookingId}/no-show", {
            params: { path: { bookingId: id } },
            body: { applyNoShowFee: fee },
          }),
        );
      }
      notify(t("booking.done", { action: t(/** @type {any} */ (`action.${action}`)) }));
      await load();
    } catch (e) {
      notify(e instanceof Error ? e.message : String(e), "error");
    }
    setBusy(false);
  }

  const actions = mayWrite ? (ACTIONS[b.status] ?? []) : [];
  return html`
    <p><a href="/admin/bookings" onClick=${(/** @type {MouseEvent} */ e) => (e.preventDefault(), go("/admin/bookings"))}>
      ${t("booking.back")}</a></p>
    <h1>${t("booking.title", { reference: b.bookingReference })}
      <span class=${`status ${b.status}`} data-testid="status">${statusName(b.status)}</span></h1>
    ${actions.length > 0
      ? html`<div class="buttons actions-bar">
          ${actions.map(
            (a) => html`<button type="button" disabled=${busy} class=${a === "cancel" ? "danger" : ""}
              onClick=${() => act(a)}>${t(/** @type {any} */ (`booking.action.${a}`))}</button>`,
          )}
          ${actions.includes("mark_no_show")
            ? html`<label class="check"><input type="checkbox" checked=${fee}
                onChange=${(/** @type {any} */ e) => setFee(e.currentTarget.checked)} />${t("booking.noShowFee")}</label>`
            : null}
        </div>`
      : null}
    <div class="panels">
      <section class="panel" aria-labelledby="b-customer">
        <h2 id="b-customer">${t("day.customer")}</h2>
        ${dialog === "customer"
          ? html`<${CustomerForm} api=${api} b=${b} done=${() => (setDialog(null), load())} />`
          : html`<p>${b.customer.name}<br />${b.customer.email}${b.customer.phone ? html`<br />${b.customer.phone}` : null}</p>
            ${mayWrite ? html`<button type="button" onClick=${() => setDialog("customer")}>${t("booking.editCustomer")}</button>` : null}`}
      </section>
      <section class="panel" aria-labelledby="b-slot">
        <h2 id="b-slot">${t("bookings.when")}</h2>
        <p data-testid="when">${dateTime(b.slot.startTime, tz)}<br />${b.product.name} · ${b.site.name}<br />
          ${t("day.party", { n: b.partySize })}</p>
        ${b.createdReason ? html`<p class="muted">${t(/** @type {any} */ (`wizard.reason.${b.createdReason}`))}</p>` : null}
        ${b.adminNotes ? html`<p class="note">${b.adminNotes}</p>` : null}
      </section>
      <section class="panel" aria-labelledby="b-price">
        <h2 id="b-price">${t("booking.price")}</h2>
        <dl class="figures">
          <dt>${t("wizard.price.base")}</dt><dd>${money(b.price.basePrice, cur)}</dd>
          ${b.price.participantTypes.map((l) => html`<dt>${t("types.line", { name: l.name, n: l.quantity })}</dt><dd>${money(l.total, cur)}</dd>`)}
          ${b.price.addons.map((a) => html`<dt>${a.name} × ${a.quantity}</dt><dd>${money(a.total, cur)}</dd>`)}
          ${b.price.promotionDiscount > 0 ? html`<dt>${t("wizard.price.discount")}</dt><dd>−${money(b.price.promotionDiscount, cur)}</dd>` : null}
          ${b.price.voucherApplied > 0 ? html`<dt>${t("wizard.price.vouchers")}</dt><dd>−${money(b.price.voucherApplied, cur)}</dd>` : null}
          <dt>${t("wizard.price.tax")}</dt><dd>${money(b.price.tax, cur)}</dd>
          <dt><strong>${t("wizard.price.total")}</strong></dt><dd><strong>${money(b.grandTotal, cur)}</strong></dd>
          <dt>${t("bookings.paid")}</dt><dd>${money(b.paidAmount, cur)}</dd>
          <dt>${t("booking.due")}</dt><dd>${money(b.balanceDue, cur)}</dd>
        </dl>
      </section>
    </div>
    <section aria-labelledby="b-payments">
      <h2 id="b-payments">${t("booking.payments")}</h2>
      ${b.payments.length === 0
        ? html`<p class="muted">${t("booking.noPayments")}</p>`
        : html`<table class="bookings"><thead><tr><th scope="col">${t("booking.paidOn")}</th><th scope="col">${t("day.payment")}</th>
            <th scope="col">${t("booking.amount")}</th><th scope="col">${t("booking.refunded")}</th><th scope="col">${t("day.status")}</th></tr></thead>
            <tbody>${b.payments.map(
              (p) => html`<tr><td>${dateTime(p.createdAt, tz)}</td><td>${t(/** @type {any} */ (`method.${p.method}`))}</td>
                <td>${money(p.amount, p.currency)}</td><td>${money(p.refundedAmount, p.currency)}</td><td>${p.status}</td></tr>`,
            )}</tbody></table>`}
    </section>
    <${Waivers} api=${api} b=${b} tz=${tz} mayWrite=${mayWrite} reload=${load} />
    <${Notes} api=${api} b=${b} tz=${tz} mayWrite=${mayWrite} reload=${load} />
    <section aria-labelledby="b-issues">
      <h2 id="b-issues">${t("booking.issues")}</h2>
      ${b.issues.length === 0
        ? html`<p class="muted">${t("booking.noIssues")}</p>`
        : html`<ul>${b.issues.map(
            (i) => html`<li><strong>${i.summary}</strong> · ${i.category} · ${i.priority} · ${i.status}
              ${i.overdue ? html` <span class="badge warn">${t("booking.overdue")}</span>` : null}</li>`,
          )}</ul>`}
    </section>
    <${History} log=${b.auditLog} tz=${tz} />
    ${dialog === "cancel"
      ? html`<${CancelDialog} api=${api} session=${session}
          booking=${{ bookingId: b.bookingId, bookingReference: b.bookingReference }} currency=${cur}
          onClose=${(/** @type {boolean} */ done) => (setDialog(null), done && load())} />`
      : null}
    ${dialog === "move"
      ? html`<${MoveBooking} api=${api} b=${b} site=${site}
          onClose=${(/** @type {boolean} */ done) => (setDialog(null), done && load())} />`
      : null}
  `;
}

/**
 * Correcting the customer's details (every change is audited).
 * @param {{api: import("../shared/api.js").Client, b: Schemas["BookingDetail"], done: () => void}} props
 */
function CustomerForm({ api, b, done }) {
  const [c, setC] = useState({ name: b.customer.name, email: b.customer.email, phone: b.customer.phone });
  const [error, setError] = useState("");
  /** @param {Event} e */
  async function save(e) {
    e.preventDefault();
    try {
      await ok(
        api.PATCH("/api/v1/admin/bookings/{id}/customer", {
          params: { path: { id: b.bookingId } },
          body: { customerName: c.name, customerEmail: c.email, customerPhone: c.phone },
        }),
      );
      notify(t("booking.customerSaved"));
      done();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  }
  return html`<form class="fields" onSubmit=${save}>
    <label>${t("wizard.customer.name")}<input value=${c.name} required
      onInput=${(/** @type {any} */ e) => setC({ ...c, name: e.currentTarget.value })} /></label>
    <label>${t("wizard.customer.email")}<input type="email" value=${c.email} required
      onInput=${(/** @type {any} */ e) => setC({ ...c, email: e.currentTarget.value })} /></label>
    <label>${t("wizard.customer.phone")}<input type="tel" value=${c.phone}
      onInput=${(/** @type {any} */ e) => setC({ ...c, phone: e.currentTarget.value })} /></label>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <div class="buttons"><button type="submit" class="primary">${t("booking.save")}</button>
      <button type="button" onClick=${done}>${t("common.cancel")}</button></div>
  </form>`;
}
