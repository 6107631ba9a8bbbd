// Packages on the booking page: several activities booked together at the package's
// price. The customer picks a package, the day and the party, a time for each activity
// and gives their details; every activity is then held at once as one group (with the
// time left shown), a promotion code or voucher applies to the group's total, and one
// card payment pays for everything.
import { html, useState, useEffect, useRef } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";
import { money, moneyMinor, time, longDate, addDays } from "../shared/format.js";
import { SandboxCard } from "../shared/card.js";
import { ProviderCard } from "../shared/provider-card.js";
import { HoldClock } from "./checkout.js";

/** @typedef {import("./main.js").Choice} Choice */
/** @typedef {import("../shared/api.js").Schemas} Schemas */

/**
 * @typedef {object} StepProps
 * @property {import("../shared/api.js").Client} api
 * @property {Choice} choice
 * @property {(change: Partial<Choice>) => void} update
 */

/** What a package costs, in words. @param {Schemas["PackageDto"]} p */
const priceText = (p) =>
  p.priceType === "PACKAGE_PRICE"
    ? t("book.package.perPerson", { price: money(p.pricePerPerson ?? 0, p.currency) })
    : t("book.package.percentOff", { percent: p.percentOff ?? 0 });

/**
 * The packages of this site's activities, for the first step.
 * @param {{api: StepProps["api"], choice: Choice, update: StepProps["update"]}} props
 */
export function PackageList({ api, choice, update }) {
  const [packages, setPackages] = useState(/** @type {Schemas["PackageDto"][]} */ ([]));
  useEffect(() => {
    const here = new Set(choice.site.products.map((p) => p.id));
    ok(api.GET("/api/v1/packages"))
      .then((r) => setPackages(r.items.filter((p) => p.productIds.every((id) => here.has(id)))))
      .catch(() => setPackages([]));
  }, [choice.site.siteId]);
  if (packages.length === 0) return null;
  const name = (/** @type {string} */ id) => choice.site.products.find((p) => p.id === id)?.name ?? "";
  return html`
    <h3>${t("book.package.title")}</h3>
    <ul class="cards">
      ${packages.map(
        (p) => html`<li><button type="button" class="card" onClick=${() => update({ package: p })}>
          <strong>${p.name}</strong>
          ${p.description ? html`<span>${p.description}</span>` : null}
          <span>${p.productIds.map(name).join(" + ")}</span>
          <span class="muted">${priceText(p)}</span>
        </button></li>`,
      )}
    </ul>
  `;
}

/** The day, the party, a time for each activity and who books: the group's hold. @param {StepProps} props */
export function PackageTimes({ api, choice, update }) {
  const site = choice.site;
  const pkg = /** @type {Schemas["PackageDto"]} */ (choice.package);
  const products = pkg.productIds.map((id) => site.products.find((p) => p.id === id)).filter((p) => p != null);
  const today = new Intl.DateTimeFormat("en-CA", { timeZone: site.timezone }).format(new Date());
  const last = addDays(today, site.bookingPolicies.bookingHorizonDays);
  const [slots, setSlots] = useState(/** @type {Record<string, Schemas["AvailabilitySlot"][]>} */ ({}));
  const [picked, setPicked] = useState(/** @type {Record<string, string>} */ ({}));
  const [customer, setCustomer] = useState(choice.customer);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  // One key per attempt: a retry after a lost answer gets the same group.
  const key = useRef(crypto.randomUUID());
  const heading = useRef(/** @type {HTMLHeadingElement | null} */ (null));
  useEffect(() => heading.current?.focus(), []);
  const maxParty = Math.min(site.bookingPolicies.maxPartySize, ...products.map((p) => p.capacity));

  useEffect(() => {
    setPicked({});
    setSlots({});
    setError("");
    Promise.all(
      products.map((p) =>
        ok(api.GET("/api/v1/availability", {
          params: { query: { site_id: site.siteId, product_id: p.id, date_from: choice.date, party_size: choice.partySize } },
        })).then((a) => /** @type {[string, Schemas["AvailabilitySlot"][]]} */ ([p.id, a.slots])),
      ),
    )
      .then((all) => setSlots(Object.fromEntries(all)))
      .catch((e) => setError(e.message));
  }, [choice.date, choice.partySize]);

  /** @param {string} date */
  const setDate = (date) => date >= today && date <= last && update({ date });
  const complete = products.every((p) => picked[p.id]);

  /** @param {Event} e */
  async function hold(e) {
    e.preventDefault();
    setBusy(true);
    setError("");
    try {
      const group = await ok(api.POST("/api/v1/booking-groups/hold", {
        params: { header: { "Idempotency-Key": key.current } },
        body: {
          groupType: "PACKAGE",
          packageId: pkg.id,
          partySize: choice.partySize,
          customerName: customer.name.trim(),
          customerEmail: customer.email.trim(),
          customerPhone: customer.phone.trim() || null,
          slotSelections: products.map((p) => ({ productId: p.id, siteId: site.siteId, slotId: picked[p.id] })),
        },
      }));
      update({ customer, group });
    } catch (err) {
      key.current = crypto.randomUUID();
      setError(err instanceof Error ? err.message : String(err));
      setBusy(false);
    }
  }

  /** @param {Partial<typeof customer>} change */
  const set = (change) => setCustomer({ ...customer, ...change });
  return html`
    <h2 tabindex="-1" ref=${heading}>${pkg.name}</h2>
    <p>${priceText(pkg)}</p>
    <div class="row">
      <label>${t("book.day")}
        <input type="date" value=${choice.date} min=${today} max=${last} required
          onChange=${(/** @type {any} */ e) => setDate(e.currentTarget.value)} /></label>
      <label>${t("book.people")}
        <select value=${choice.partySize} onChange=${(/** @type {any} */ e) => update({ partySize: Number(e.currentTarget.value) })}>
          ${Array.from({ length: Math.max(1, Math.min(maxParty, 30)) }, (_, i) => html`<option value=${i + 1}>${i + 1}</option>`)}
        </select></label>
    </div>
    <form class="fields" onSubmit=${hold}>
      ${products.map((p) => {
        const list = slots[p.id];
        return html`<fieldset class="choices" data-activity=${p.id}>
          <legend>${t("book.package.timeFor", { name: p.name, day: longDate(choice.date) })}</legend>
          ${!list && !error ? html`<p aria-busy="true">${t("common.loading")}</p>` : null}
          ${list && list.length === 0 ? html`<p>${t("book.noTimes")}</p>` : null}
          ${(list ?? []).map(
            (s) => html`<label class="choice"><input type="radio" name=${`time-${p.id}`} required checked=${picked[p.id] === s.slotId}
              onChange=${() => setPicked({ ...picked, [p.id]: s.slotId })} />
              <span>${time(s.startsAt, site.timezone)} · ${t("book.left", { n: s.availableCapacity })}</span></label>`,
          )}
        </fieldset>`;
      })}
      <label>${t("wizard.customer.name")}
        <input value=${customer.name} required autocomplete="name" maxlength="200"
          onInput=${(/** @type {any} */ e) => set({ name: e.currentTarget.value })} /></label>
      <label>${t("wizard.customer.email")}
        <input type="email" value=${customer.email} required autocomplete="email"
          onInput=${(/** @type {any} */ e) => set({ email: e.currentTarget.value })} /></label>
      <label>${t("book.phoneOptional")}
        <input type="tel" value=${customer.phone} autocomplete="tel"
          onInput=${(/** @type {any} */ e) => set({ phone: e.currentTarget.value })} /></label>
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      <div class="buttons">
        <button type="submit" class="primary" disabled=${busy || !complete}>${t("book.package.hold", { count: products.length })}</button>
        <button type="button" onClick=${() => update({ package: null })}>${t("book.otherActivity")}</button>
      </div>
    </form>
  `;
}

/** The held group: its activities and price, a code or voucher, and one card payment. @param {StepProps} props */
export function GroupCheckout({ api, choice, update }) {
  const group = /** @type {Schemas["BookingGroupDto"]} */ (choice.group);
  const token = group.groupToken ?? "";
  const headers = { "x-booking-token": token };
  const path = { id: group.id };
  const site = choice.site;
  const [code, setCode] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const [expired, setExpired] = useState(false);
  const [payment, setPayment] = useState(/** @type {Schemas["PaymentAction"] | null} */ (null));
  const heading = useRef(/** @type {HTMLHeadingElement | null} */ (null));
  useEffect(() => heading.current?.focus(), []);
  const p = /** @type {Schemas["GroupPricingDto"]} */ (group.pricing);
  const name = (/** @type {string} */ id) => site.products.find((x) => x.id === id)?.name ?? "";
  const method = site.paymentMethods.includes("cardpay") ? "CARDPAY" : site.paymentMethods.includes("bankpay") ? "BANKPAY" : null;
  /** The group as it is now, its token kept. @param {Schemas["BookingGroupDto"]} g */
  const keep = (g) => ({ ...g, groupToken: token });

  /** A code: tried as a promotion code first, then as a voucher or gift card. @param {Event} e */
  async function apply(e) {
    e.preventDefault();
    const value = code.trim();
    if (!value) return;
    setBusy(true);
    setError("");
    try {
      let g;
      try {
        g = (await ok(api.POST("/api/v1/booking-groups/{id}/apply-promo", { headers, params: { path }, body: { promotion_code: value } }))).group;
      } catch (err) {
        // Not a promotion code: perhaps a voucher's or a gift card's.
        const f = /** @type {any} */ (err);
        if (f.code !== "INVALID_PROMOTION" || f.details?.reason !== "not_found") throw err;
        g = (await ok(api.POST("/api/v1/booking-groups/{id}/apply-voucher", { headers, params: { path }, body: { voucher_code: value } }))).group;
      }
      update({ group: keep(g) });
      setCode("");
    } catch (err) {
      const f = /** @type {any} */ (err);
      setError(f.status === 404 ? t("book.codeUnknown") : f.message);
    }
    setBusy(false);
  }

  /** Reads the group until the provider's event has confirmed it. */
  async function paid() {
    setBusy(true);
    for (let i = 0; i < 60; i++) {
      const g = await ok(api.GET("/api/v1/booking-groups/{id}", { headers, params: { path } }));
      if (g.status === "CONFIRMED") {
        update({ group: keep(g), groupBooked: true });
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
    if (!method) return;
    setBusy(true);
    setError("");
    const back = location.href;
    try {
      const g = await ok(api.POST("/api/v1/booking-groups/{id}/confirm", {
        headers,
        params: { path },
        body: { paymentMethod: method, ...(method === "BANKPAY" ? { successUrl: back, cancelUrl: back } : {}) },
      }));
      if (g.payment?.redirectUrl) {
        (window.top ?? window).location.href = g.payment.redirectUrl;
        return;
      }
      if (g.payment?.sandboxConfirmUrl || g.payment?.publishableKey) {
        setPayment(g.payment);
        setBusy(false);
        return;
      }
      update({ group: keep(g), groupBooked: g.status === "CONFIRMED" });
      setBusy(false);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      setBusy(false);
    }
  }

  if (expired && !payment) {
    return html`<p class="error" role="alert">${t("book.expired")}</p>
      <button type="button" onClick=${() => update({ group: null })}>${t("book.otherTime")}</button>`;
  }
  return html`
    <h2 tabindex="-1" ref=${heading}>${t("book.checkout")}</h2>
    <${HoldClock} until=${group.holdExpiresAt ?? ""} onExpired=${() => setExpired(true)} />
    <ul data-testid="group-activities">${group.bookings.map(
      (b) => html`<li>${name(b.productId)} · ${longDate(choice.date)} ${time(b.startsAt, site.timezone)}</li>`,
    )}</ul>
    <p>${t("book.peopleN", { n: group.partySize })}</p>
    <dl class="figures" data-testid="price">
      <dt>${t("book.price")}</dt><dd>${money(p.subtotal, p.currency)}</dd>
      ${p.promotions.map((c) => html`<dt>${t("book.package.code", { code: c.code })}</dt><dd>−${money(c.amount, p.currency)}</dd>`)}
      ${p.voucherApplied > 0 ? html`<dt>${t("wizard.price.vouchers")}</dt><dd>−${money(p.voucherApplied, p.currency)}</dd>` : null}
      <dt>${t("wizard.price.tax")}</dt><dd>${money(p.taxTotal, p.currency)}</dd>
      <dt><strong>${t("wizard.price.total")}</strong></dt><dd><strong>${money(p.grandTotal, p.currency)}</strong></dd>
    </dl>
    ${payment?.publishableKey
      ? html`<${ProviderCard} payment=${payment} onPaid=${paid} amountText=${moneyMinor(payment.amount, payment.currency)}
          billing=${{ name: choice.customer.name, email: choice.customer.email }} />`
      : payment
      ? html`<${SandboxCard} payment=${payment} onPaid=${paid} amountText=${moneyMinor(payment.amount, payment.currency)} />`
      : html`
        <form class="row" onSubmit=${apply}>
          <label>${t("book.code")}
            <input value=${code} autocomplete="off" onInput=${(/** @type {any} */ e) => setCode(e.currentTarget.value)} /></label>
          <button type="submit" disabled=${busy || !code.trim()}>${t("wizard.apply")}</button>
        </form>
        <form onSubmit=${confirm}>
          ${method
            ? html`<button type="submit" class="primary" disabled=${busy}>
                ${p.grandTotal > 0 ? t("book.payNow", { amount: money(p.grandTotal, p.currency) }) : t("book.confirm")}</button>`
            : html`<p>${t("book.package.noOnlinePayment")}</p>`}
        </form>`}
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
  `;
}

/** The group is booked. @param {{choice: Choice}} props */
export function GroupBooked({ choice }) {
  const group = /** @type {Schemas["BookingGroupDto"]} */ (choice.group);
  const heading = useRef(/** @type {HTMLHeadingElement | null} */ (null));
  useEffect(() => heading.current?.focus(), []);
  const name = (/** @type {string} */ id) => choice.site.products.find((x) => x.id === id)?.name ?? "";
  return html`
    <h2 tabindex="-1" ref=${heading}>${t("book.booked")}</h2>
    <p class="reference">${t("book.reference")} <strong data-testid="reference">${group.reference}</strong></p>
    <ul>${group.bookings.map(
      (b) => html`<li>${name(b.productId)} · ${longDate(choice.date)} ${time(b.startsAt, choice.site.timezone)} (${b.reference})</li>`,
    )}</ul>
    <p>${t("book.peopleN", { n: group.partySize })}</p>
    <p>${t("book.paidNote")}</p>
    <p>${t("book.emailNote", { email: choice.customer.email })}</p>
  `;
}
