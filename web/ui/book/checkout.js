// The widget's checkout: the places are held (the time left is shown), rooms and
// equipment the activity offers may be added around it, a promotion code, voucher or
// gift card may be applied, then the customer pays by card or chooses to pay on arrival
// (what the venue allows), and gets the reference and the link to the booking.
import { html, useState, useEffect, useRef } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";
import { money, moneyMinor, time, longDate } from "../shared/format.js";
import { SandboxCard } from "../shared/card.js";
import { ProviderCard } from "../shared/provider-card.js";
import { RoomChoices } from "../shared/rooms.js";
import { manageLink, waiverLink } from "./main.js";

/** @typedef {import("./main.js").Choice} Choice */
/** @typedef {import("../shared/api.js").Schemas} Schemas */
/** @typedef {import("../shared/rooms.js").RoomChoice & {allocationId: string}} HeldRoom */

/** Minutes and seconds left on the hold, ticking; a message once it has run out. */
export function HoldClock({ until, onExpired }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const left = Math.max(0, Math.floor((new Date(until).getTime() - now) / 1000));
  useEffect(() => {
    if (left === 0) onExpired();
  }, [left === 0]);
  const text = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
  return html`<p class="hold-clock" role="timer" aria-live="off">${t("book.heldFor", { left: text })}</p>`;
}

/**
 * The price of the hold, after codes when any were applied.
 * @param {Choice} c
 */
function price(c) {
  const hold = /** @type {Schemas["BookingResponse"]} */ (c.hold);
  const p = c.priced;
  return {
    currency: hold.price.currency,
    subtotal: p?.subtotal ?? hold.price.subtotal,
    discount: p?.promotion_discount ?? hold.price.promotionDiscount,
    vouchers: p?.voucher_applied ?? hold.price.voucherApplied,
    tax: p?.tax_amount ?? hold.price.tax,
    total: p?.total ?? hold.price.total,
    hash: p?.pricing_hash ?? hold.pricingHash,
  };
}

/**
 * @param {object} props
 * @param {import("../shared/api.js").Client} props.api
 * @param {Choice} props.choice
 * @param {(change: Partial<Choice>) => void} props.update
 */
export function Checkout({ api, choice, update }) {
  const hold = /** @type {Schemas["BookingResponse"]} */ (choice.hold);
  const token = hold.bookingToken ?? "";
  const headers = { "x-booking-token": token };
  const site = choice.site;
  const [code, setCode] = useState("");
  const [applied, setApplied] = useState(/** @type {string[]} */ ([]));
  const [method, setMethod] = useState(site.paymentMethods.includes("cardpay") ? "cardpay" : site.paymentMethods[0]);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const [expired, setExpired] = useState(false);
  const [payment, setPayment] = useState(/** @type {Schemas["PaymentAction"] | null} */ (null));
  const [rooms, setRooms] = useState(/** @type {HeldRoom[]} */ ([]));
  const heading = useRef(/** @type {HTMLHeadingElement | null} */ (null));
  useEffect(() => heading.current?.focus(), []);
  const p = price(choice);
  const byVouchers = p.total === 0 && p.vouchers > 0;

  /**
   * A code: tried as a promotion code first, then as a voucher or gift card.
   * @param {Event} e
   */
  async function apply(e) {
    e.preventDefault();
    const value = code.trim();
    if (!value) return;
    setBusy(true);
    setError("");
    try {
      let priced;
      try {
        priced = (
          await ok(
            api.POST("/api/v1/promotions/apply", {
              headers,
              body: { booking_id: hold.id, promotion_code: value, expected_pricing_hash: p.hash },
            }),
          )
        ).booking;
      } catch (err) {
        // Not a promotion code: perhaps a voucher's or a gift card's.
        const f = /** @type {any} */ (err);
        if (f.code !== "INVALID_PROMOTION" || f.details?.reason !== "not_found") throw err;
        priced = (
          await ok(
            api.POST("/api/v1/bookings/{id}/apply-voucher", {
              headers,
              params: { path: { id: hold.id } },
              body: { voucher_code: value, expected_pricing_hash: p.hash },
            }),
          )
        ).booking;
      }
      update({ priced });
      setApplied([...applied, value.toUpperCase()]);
      setCode("");
    } catch (err) {
      const f = /** @type {any} */ (err);
      setError(f.status === 404 ? t("book.codeUnknown") : f.message);
    }
    setBusy(false);
  }

  /**
   * Adds the rooms newly chosen to the hold and gives back those no longer wanted, in one
   * step; the hold's price is read again.
   * @param {import("../shared/rooms.js").RoomChoice[]} next
   */
  async function changeRooms(next) {
    /** @param {import("../shared/rooms.js").RoomChoice} x @param {import("../shared/rooms.js").RoomChoice} y */
    const same = (x, y) => x.configId === y.configId && x.startsAt === y.startsAt && x.endsAt === y.endsAt;
    const kept = rooms.filter((r) => next.some((n) => same(n, r)));
    const add = next.filter((n) => !kept.some((r) => same(n, r)));
    const remove = rooms.filter((r) => !kept.includes(r)).map((r) => r.allocationId);
    const before = rooms;
    // Shown chosen at once; the new allocations follow from the answer.
    setRooms(next.map((n) => kept.find((r) => same(r, n)) ?? { ...n, allocationId: "" }));
    setBusy(true);
    setError("");
    let changed;
    try {
      changed = await ok(api.PATCH("/api/v1/bookings/{id}/resource-addons", {
        headers,
        params: { path: { id: hold.id } },
        body: {
          add: add.map((r) => ({ configId: r.configId, startsAt: r.startsAt, endsAt: r.endsAt, durationMins: r.durationMins })),
          remove,
        },
      }));
    } catch (err) {
      setRooms(before);
      setError(err instanceof Error ? err.message : String(err));
      setBusy(false);
      return;
    }
    // The new allocations are the answer's less those kept, matched to the windows asked.
    const keptIds = new Set(kept.map((r) => r.allocationId));
    const fresh = changed.addons.filter((a) => !keptIds.has(a.allocationId));
    setRooms(next.map((n) => {
      const k = kept.find((r) => same(r, n));
      if (k) return k;
      const i = fresh.findIndex((a) => a.addonId === n.addonId && Date.parse(a.startsAt) === Date.parse(n.startsAt));
      const [a] = fresh.splice(Math.max(i, 0), 1);
      return { ...n, allocationId: a?.allocationId ?? "" };
    }));
    try {
      const b = await ok(api.GET("/api/v1/bookings/{id}", { headers, params: { path: { id: hold.id } } }));
      update({ hold: { ...b, bookingToken: token }, priced: null });
    } catch (err) {
      // The rooms are on the hold; only its new price could not be read.
      setError(err instanceof Error ? err.message : String(err));
    }
    setBusy(false);
  }

  /** Reads the booking until the provider's event has made it paid. */
  async function paid() {
    setBusy(true);
    for (let i = 0; i < 60; i++) {
      const b = await ok(api.GET("/api/v1/bookings/{id}", { headers, params: { path: { id: hold.id } } }));
      if (b.status === "paid") {
        update({ booked: { ...b, bookingToken: token } });
        return;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    setError(t("book.paymentSlow"));
    setBusy(false);
  }

  /** @param {Event} e */
  async function confirm(e) {
    e.preventDefault();
    setBusy(true);
    setError("");
    const paymentMethod = byVouchers ? "voucher" : method;
    const back = `${manageLink(hold.id, token).replace("#", "&payment=done#")}`;
    try {
      const b = await ok(
        api.POST("/api/v1/bookings/{id}/confirm", {
          headers,
          params: { path: { id: hold.id } },
          body: {
            pricingHash: p.hash,
            paymentMethod: /** @type {any} */ (paymentMethod),
            ...(paymentMethod === "bankpay" ? { successUrl: back, cancelUrl: back } : {}),
          },
        }),
      );
      if (b.payment?.redirectUrl) {
        (window.top ?? window).location.href = b.payment.redirectUrl;
        return;
      }
      if (b.payment?.sandboxConfirmUrl || b.payment?.publishableKey) {
        setPayment(b.payment);
        setBusy(false);
        return;
      }
      if (b.payment?.provider === "cardpay") {
        // A venue's own card account without its publishable key: the provider's card
        // form cannot be shown, so say so rather than call the booking done.
        setError(t("book.cardNotHere", { reference: b.reference }));
        setBusy(false);
        return;
      }
      update({ booked: { ...b, bookingToken: token } });
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      setBusy(false);
    }
  }

  if (expired && !payment) {
    return html`<p class="error" role="alert">${t("book.expired")}</p>
      <button type="button" onClick=${() => update({ hold: null, priced: null })}>${t("book.otherTime")}</button>`;
  }
  const slot = /** @type {Schemas["AvailabilitySlot"]} */ (choice.slot);
  return html`
    <h2 tabindex="-1" ref=${heading}>${t("book.checkout")}</h2>
    <${HoldClock} until=${hold.holdExpiresAt ?? ""} onExpired=${() => setExpired(true)} />
    <p>${choice.product?.name} · ${longDate(choice.date)} ${time(slot.startsAt, site.timezone)} ·
      ${t("book.peopleN", { n: choice.partySize })}</p>
    <dl class="figures" data-testid="price">
      <dt>${t("book.price")}</dt><dd>${money(p.subtotal, p.currency)}</dd>
      ${p.discount > 0 ? html`<dt>${t("wizard.price.discount")}</dt><dd>−${money(p.discount, p.currency)}</dd>` : null}
      ${p.vouchers > 0 ? html`<dt>${t("wizard.price.vouchers")}</dt><dd>−${money(p.vouchers, p.currency)}</dd>` : null}
      <dt>${t("wizard.price.tax")}</dt><dd>${money(p.tax, p.currency)}</dd>
      <dt><strong>${t("wizard.price.total")}</strong></dt><dd><strong>${money(p.total, p.currency)}</strong></dd>
    </dl>
    ${payment?.publishableKey
      ? html`<${ProviderCard} payment=${payment} onPaid=${paid} amountText=${moneyMinor(payment.amount, payment.currency)}
          billing=${{ name: choice.customer.name, email: choice.customer.email }} />`
      : payment
      ? html`<${SandboxCard} payment=${payment} onPaid=${paid} amountText=${moneyMinor(payment.amount, payment.currency)} />`
      : html`
        <${RoomChoices} api=${api} productId=${choice.product?.id ?? ""} slot=${slot} tz=${site.timezone}
          partySize=${choice.partySize} rooms=${rooms} onChange=${changeRooms} disabled=${busy} />
        <form class="row" onSubmit=${apply}>
          <label>${t("book.code")}
            <input value=${code} autocomplete="off" onInput=${(/** @type {any} */ e) => setCode(e.currentTarget.value)} />
          </label>
          <button type="submit" disabled=${busy || !code.trim()}>${t("wizard.apply")}</button>
        </form>
        ${applied.length > 0 ? html`<p>${t("wizard.applied", { codes: applied.join(", ") })}</p>` : null}
        <form onSubmit=${confirm}>
          ${byVouchers
            ? html`<p>${t("wizard.paidByVouchers")}</p>`
            : html`<fieldset class="choices">
                <legend>${t("wizard.payment")}</legend>
                ${site.paymentMethods.map(
                  (m) => html`<label class="choice"><input type="radio" name="method" checked=${method === m}
                    onChange=${() => setMethod(m)} /><span>${t(/** @type {any} */ (`book.method.${m}`))}</span></label>`,
                )}
              </fieldset>`}
          <button type="submit" class="primary" disabled=${busy}>
            ${byVouchers || method === "poa" ? t("book.confirm") : t("book.payNow", { amount: money(p.total, p.currency) })}
          </button>
        </form>`}
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
  `;
}

/** @param {{choice: Choice}} props */
export function Booked({ choice }) {
  const b = /** @type {Schemas["BookingResponse"]} */ (choice.booked);
  const heading = useRef(/** @type {HTMLHeadingElement | null} */ (null));
  useEffect(() => heading.current?.focus(), []);
  const link = manageLink(b.id, b.bookingToken ?? "");
  const slot = /** @type {Schemas["AvailabilitySlot"]} */ (choice.slot);
  return html`
    <h2 tabindex="-1" ref=${heading}>${t("book.booked")}</h2>
    <p class="reference">${t("book.reference")} <strong data-testid="reference">${b.reference}</strong></p>
    <p>${choice.product?.name} · ${longDate(choice.date)} ${time(slot.startsAt, choice.site.timezone)} ·
      ${t("book.peopleN", { n: b.partySize })}</p>
    <p>${b.status === "paid" ? t("book.paidNote") : t("book.payOnArrivalNote")}</p>
    <p>${t("book.emailNote", { email: choice.customer.email })}</p>
    <p>${t("book.manageNote")} <a href=${link} data-testid="manage-link">${t("book.manageLink")}</a></p>
    ${choice.product?.requiresWaiver
      ? html`<p>${t("book.signWaiversNote")} <a href=${waiverLink(b.id)} data-testid="waiver-link">${t("book.signWaivers")}</a></p>`
      : null}
  `;
}
