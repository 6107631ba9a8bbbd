// The wizard's end: the hold (made on entering promotions, so codes are checked against
// it), promotion codes and vouchers or gift cards, then review and payment, and the
// confirmation with the card form when paying by card.
import { html, useState, useEffect, useRef } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok, ApiFailure } from "../shared/api.js";
import { money, moneyMinor, dateTime } from "../shared/format.js";
import { SandboxCard } from "../shared/card.js";
import { ProviderCard } from "../shared/provider-card.js";
import { addRooms } from "../shared/rooms.js";
import { typesBody } from "../shared/type-counts.js";
import { can } from "./session.js";
import { statusName } from "./day-sheet.js";

/** @typedef {import("./wizard.js").StepProps} StepProps */
/** @typedef {import("./wizard.js").Draft} Draft */
/** @typedef {import("../shared/api.js").Schemas} Schemas */

/** The hold's price as the wizard shows it: after the codes applied, if any. */
function price(/** @type {Draft} */ d) {
  const h = /** @type {Schemas["AdminCreateResponse"]} */ (d.hold);
  return {
    currency: d.priced?.currency ?? /** @type {Schemas["ProductDto"]} */ (d.product).currency,
    subtotal: d.priced?.subtotal ?? h.breakdown.total,
    discount: d.priced?.promotion_discount ?? 0,
    vouchers: d.priced?.voucher_applied ?? 0,
    tax: d.priced?.tax_amount ?? h.breakdown.tax,
    total: d.priced?.total ?? h.grandTotal,
    hash: d.priced?.pricing_hash ?? h.pricingHash,
  };
}

/** @param {{draft: Draft}} props */
export function PriceTable({ draft }) {
  const p = price(draft);
  const h = /** @type {Schemas["AdminCreateResponse"]} */ (draft.hold);
  return html`<dl class="figures" data-testid="price">
    <dt>${t("wizard.price.base")}</dt><dd>${money(h.breakdown.basePrice, p.currency)}</dd>
    ${h.breakdown.participantTypes.map((l) => html`<dt>${t("types.line", { name: l.name, n: l.quantity })}</dt><dd>${money(l.total, p.currency)}</dd>`)}
    ${h.breakdown.addons.map((a) => html`<dt>${a.name} × ${a.quantity}</dt><dd>${money(a.total, p.currency)}</dd>`)}
    ${draft.rooms.map((r) => html`<dt>${r.name}</dt><dd>${money(r.price, r.currency)}</dd>`)}
    ${p.discount > 0 ? html`<dt>${t("wizard.price.discount")}</dt><dd>−${money(p.discount, p.currency)}</dd>` : null}
    ${p.vouchers > 0 ? html`<dt>${t("wizard.price.vouchers")}</dt><dd>−${money(p.vouchers, p.currency)}</dd>` : null}
    <dt>${t("wizard.price.tax")}</dt><dd>${money(p.tax, p.currency)}</dd>
    <dt><strong>${t("wizard.price.total")}</strong></dt><dd><strong>${money(p.total, p.currency)}</strong></dd>
  </dl>`;
}

/** Minutes and seconds left on the hold, ticking. */
function HoldClock({ until }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const left = Math.max(0, Math.floor((new Date(until).getTime() - now) / 1000));
  const text = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
  return left > 0
    ? html`<p class="hold-clock">${t("wizard.heldFor", { left: text })}</p>`
    : html`<p class="error" role="alert">${t("wizard.holdExpired")}</p>`;
}

/** @param {StepProps} props */
export function PromotionsStep({ api, draft, update, next }) {
  const [error, setError] = useState("");
  const [code, setCode] = useState("");
  const [voucher, setVoucher] = useState("");
  const [busy, setBusy] = useState(false);
  const making = useRef(false);

  useEffect(() => {
    if (draft.hold || making.current) return;
    making.current = true;
    hold().finally(() => (making.current = false));
  }, [draft.hold]);

  async function hold() {
    const d = draft;
    const site = /** @type {Schemas["SiteDto"]} */ (d.site);
    const product = /** @type {Schemas["ProductDto"]} */ (d.product);
    const slot = /** @type {Schemas["AvailabilitySlot"]} */ (d.slot);
    try {
      const held = await ok(
        api.POST("/api/v1/admin/bookings", {
          body: {
            siteId: site.id,
            productId: product.id,
            ...(d.variant ? { variantId: d.variant.id } : {}),
            startTime: slot.startsAt,
            partySize: d.partySize,
            customerInfo: {
              name: d.customer.name.trim(),
              email: d.customer.email.trim(),
              ...(d.customer.phone.trim() ? { phone: d.customer.phone.trim() } : {}),
            },
            addons: Object.entries(d.addons).map(([addonId, quantity]) => ({ addonId, quantity })),
            participants: d.participants,
            ...(typesBody(d.types ?? {}).length > 0 ? { participantTypes: typesBody(d.types ?? {}) } : {}),
            ...(d.staff.adminNotes.trim() ? { adminNotes: d.staff.adminNotes.trim() } : {}),
            ...(d.staff.createdReason ? { createdReason: d.staff.createdReason } : {}),
            termsAcceptedOnBehalf: d.staff.termsAccepted,
            sendConfirmationEmail: d.staff.sendEmail,
          },
        }),
      );
      if (d.customer.specialRequests.trim()) {
        await ok(
          api.POST("/api/v1/admin/bookings/{bookingId}/notes", {
            params: { path: { bookingId: held.bookingId } },
            body: { content: d.customer.specialRequests.trim(), category: "special_request", isInternal: false },
          }),
        );
      }
      // The rooms chosen are added to the hold; if one was taken meanwhile, the hold stays
      // without any and the error says so.
      try {
        const priced = await addRooms(api, held.bookingId, d.rooms);
        update({ hold: held, priced, codes: [], vouchers: [] });
      } catch (e) {
        setError(t("wizard.room.failed", { reason: e instanceof Error ? e.message : String(e) }));
        update({ hold: held, priced: null, rooms: [], codes: [], vouchers: [] });
      }
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }

  /**
   * Applies a promotion code or a voucher (or gift card) code to the hold.
   * @param {"promotion" | "voucher"} kind
   * @param {Event} e
   */
  async function apply(kind, e) {
    e.preventDefault();
    const hold = /** @type {Schemas["AdminCreateResponse"]} */ (draft.hold);
    const value = (kind === "promotion" ? code : voucher).trim();
    if (!value) return;
    setBusy(true);
    setError("");
    try {
      const expected = price(draft).hash;
      const answer =
        kind === "promotion"
          ? await ok(
              api.POST("/api/v1/promotions/apply", {
                body: { booking_id: hold.bookingId, promotion_code: value, expected_pricing_hash: expected },
              }),
            )
          : await ok(
              api.POST("/api/v1/bookings/{id}/apply-voucher", {
                params: { path: { id: hold.bookingId } },
                body: { voucher_code: value, expected_pricing_hash: expected },
              }),
            );
      if (kind === "promotion") {
        update({ priced: answer.booking, codes: [...draft.codes, value.toUpperCase()] });
        setCode("");
      } else {
        update({ priced: answer.booking, vouchers: [...draft.vouchers, value.toUpperCase()] });
        setVoucher("");
      }
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
    setBusy(false);
  }

  if (!draft.hold) {
    return error
      ? html`<p class="error" role="alert">${error}</p>`
      : html`<p aria-busy="true">${t("wizard.holding")}</p>`;
  }
  return html`
    <${HoldClock} until=${draft.hold.holdExpiresAt ?? ""} />
    <form class="row" onSubmit=${(/** @type {Event} */ e) => apply("promotion", e)}>
      <label>${t("wizard.promoCode")}
        <input value=${code} autocomplete="off" onInput=${(/** @type {any} */ e) => setCode(e.currentTarget.value)} />
      </label>
      <button type="submit" disabled=${busy || !code.trim()}>${t("wizard.apply")}</button>
    </form>
    <form class="row" onSubmit=${(/** @type {Event} */ e) => apply("voucher", e)}>
      <label>${t("wizard.voucherCode")}
        <input value=${voucher} autocomplete="off" onInput=${(/** @type {any} */ e) => setVoucher(e.currentTarget.value)} />
      </label>
      <button type="submit" disabled=${busy || !voucher.trim()}>${t("wizard.apply")}</button>
    </form>
    ${draft.codes.length + draft.vouchers.length > 0
      ? html`<p>${t("wizard.applied", { codes: [...draft.codes, ...draft.vouchers].join(", ") })}</p>`
      : null}
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <${PriceTable} draft=${draft} />
    <button type="button" class="primary" onClick=${next}>${t("wizard.next")}</button>
  `;
}

/** @param {StepProps} props */
export function ReviewStep({ api, session, draft, update }) {
  const mayComp = can(session, "admin:bookings:create:comp");
  /** @type {string[]} */
  const methods = ["poa", "cardpay", "bankpay", ...(mayComp ? ["invoice", "comp"] : [])];
  const [method, setMethod] = useState("poa");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const d = draft;
  const hold = /** @type {Schemas["AdminCreateResponse"]} */ (d.hold);
  const site = /** @type {Schemas["SiteDto"]} */ (d.site);
  const p = price(d);
  const method_ = p.total === 0 && p.vouchers > 0 ? "voucher" : method;

  /** @param {Event} e */
  async function confirm(e) {
    e.preventDefault();
    setBusy(true);
    setError("");
    try {
      const booking = await ok(
        api.POST("/api/v1/bookings/{id}/confirm", {
          params: { path: { id: hold.bookingId } },
          body: { pricingHash: p.hash, paymentMethod: /** @type {any} */ (method_) },
        }),
      );
      update({ confirmed: booking });
    } catch (err) {
      if (err instanceof ApiFailure && err.code === "PRICING_CHANGED") {
        setError(t("wizard.priceChanged"));
      } else {
        setError(err instanceof Error ? err.message : String(err));
      }
      setBusy(false);
    }
  }

  return html`
    <${HoldClock} until=${hold.holdExpiresAt ?? ""} />
    <dl class="figures summary-list">
      <dt>${t("wizard.step.product")}</dt><dd>${d.product?.name}${d.variant ? ` · ${d.variant.name}` : ""}</dd>
      <dt>${t("wizard.step.time")}</dt><dd>${dateTime(hold.slot.startTime, site.timezone)} · ${site.name}</dd>
      <dt>${t("wizard.partySize")}</dt><dd>${d.partySize}</dd>
      <dt>${t("wizard.step.customer")}</dt><dd>${d.customer.name} · ${d.customer.email}${d.customer.phone ? ` · ${d.customer.phone}` : ""}</dd>
      ${d.participants.length > 0
        ? html`<dt>${t("wizard.step.participants")}</dt><dd>${d.participants.map((x) => `${x.firstName} ${x.lastName}`).join(", ")}</dd>`
        : null}
    </dl>
    <${PriceTable} draft=${d} />
    <form onSubmit=${confirm}>
      ${method_ === "voucher"
        ? html`<p>${t("wizard.paidByVouchers")}</p>`
        : html`<fieldset class="choices">
            <legend>${t("wizard.payment")}</legend>
            ${methods.map(
              (m) => html`<label class="choice"><input type="radio" name="method" value=${m} checked=${method === m}
                onChange=${() => setMethod(m)} /><span>${t(/** @type {any} */ (`wizard.method.${m}`))}</span></label>`,
            )}
          </fieldset>`}
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      <button type="submit" class="primary" disabled=${busy}>${t("wizard.confirm")}</button>
    </form>
  `;
}

/**
 * @param {object} props
 * @param {import("../shared/api.js").Client} props.api
 * @param {Draft} props.draft
 * @param {{current: HTMLHeadingElement | null}} props.headingRef
 * @param {() => void} props.restart
 * @param {(to: string) => void} props.go
 */
export function DoneStep({ api, draft, headingRef, restart, go }) {
  const booking = /** @type {Schemas["BookingResponse"]} */ (draft.confirmed);
  const [status, setStatus] = useState(booking.status);
  const [waiting, setWaiting] = useState(false);
  const payment = booking.payment;
  const site = /** @type {Schemas["SiteDto"]} */ (draft.site);

  async function paid() {
    setWaiting(true);
    for (let i = 0; i < 60; i++) {
      const b = await ok(api.GET("/api/v1/admin/bookings/{id}", { params: { path: { id: booking.id } } }));
      if (b.status === "paid") {
        setStatus(b.status);
        break;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    setWaiting(false);
  }

  const dayLink = `/admin?site=${site.id}&date=${draft.date}`;
  return html`
    <div class="wizard done">
      <h1 tabindex="-1" ref=${headingRef}>${t("wizard.done", { reference: booking.reference })}</h1>
      <p data-testid="booking-status">${t("wizard.doneStatus", { status: statusName(status) })}</p>
      ${payment?.sandboxConfirmUrl && status !== "paid"
        ? waiting
          ? html`<p aria-busy="true">${t("card.waiting")}</p>`
          : html`<${SandboxCard} payment=${payment} onPaid=${paid}
              amountText=${moneyMinor(payment.amount, payment.currency)} />`
        : null}
      ${payment?.publishableKey && !payment.sandboxConfirmUrl && status !== "paid"
        ? waiting
          ? html`<p aria-busy="true">${t("card.waiting")}</p>`
          : html`<${ProviderCard} payment=${payment} onPaid=${paid}
              amountText=${moneyMinor(payment.amount, payment.currency)}
              billing=${{ name: draft.customer.name, email: draft.customer.email }} />`
        : null}
      ${payment?.provider === "cardpay" && !payment.sandboxConfirmUrl && !payment.publishableKey && status !== "paid"
        ? html`<p>${t("wizard.cardElsewhere")}</p>`
        : null}
      ${payment?.redirectUrl
        ? html`<p>${t("wizard.bankLink")} <a href=${payment.redirectUrl}>${payment.redirectUrl}</a></p>`
        : null}
      <div class="buttons">
        <button type="button" class="primary" onClick=${restart}>${t("wizard.another")}</button>
        <a class="button" href=${dayLink} onClick=${(/** @type {MouseEvent} */ e) => (e.preventDefault(), go(dayLink))}>
          ${t("wizard.toDaySheet")}</a>
      </div>
    </div>
  `;
}
