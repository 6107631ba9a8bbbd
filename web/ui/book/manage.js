// A customer's booking, reached by the link the widget gives (the booking id in the
// query, its token in the fragment): what was booked, and cancelling or moving it to
// another time within the venue's policy.
import { html, useState, useEffect } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";
import { money, moneyMinor, time, dateTime, longDate } from "../shared/format.js";

/** @typedef {import("../shared/api.js").Schemas} Schemas */

/** @param {{api: import("../shared/api.js").Client}} props */
export function Manage({ api }) {
  const id = new URLSearchParams(location.search).get("booking") ?? "";
  const token = new URLSearchParams(location.hash.slice(1)).get("token") ?? "";
  const headers = { "x-booking-token": token };
  const [booking, setBooking] = useState(/** @type {Schemas["BookingResponse"] | null} */ (null));
  const [site, setSite] = useState(/** @type {Schemas["SiteConfig"] | null} */ (null));
  const [error, setError] = useState("");
  const [notice, setNotice] = useState("");
  const [moving, setMoving] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);

  async function load() {
    try {
      const b = await ok(api.GET("/api/v1/bookings/{id}", { headers, params: { path: { id } } }));
      setBooking(b);
      if (!site) {
        setSite(await ok(api.GET("/api/v1/availability/sites/{siteId}/config", { params: { path: { siteId: b.siteId } } })));
      }
    } catch (e) {
      setError(/** @type {any} */ (e).status === 404 ? t("book.manageNotFound") : String(/** @type {any} */ (e).message));
    }
  }
  useEffect(() => void load(), []);

  async function cancel() {
    setBusy(true);
    setError("");
    try {
      const b = await ok(
        api.POST("/api/v1/bookings/{id}/cancel", {
          headers,
          params: { path: { id } },
          body: { reason: "cancelled by the customer online" },
        }),
      );
      setBooking(b);
      const refund = b.refund?.net_refund_amount ?? 0;
      setNotice(refund > 0 ? t("book.cancelledRefund", { amount: moneyMinor(refund, b.price.currency) }) : t("book.cancelled"));
    } catch (e) {
      const f = /** @type {any} */ (e);
      setError(f.code === "OUTSIDE_WINDOW" ? t("book.tooLateToCancel") : f.message);
    }
    setConfirming(false);
    setBusy(false);
  }

  if (error && !booking) return html`<p class="error" role="alert">${error}</p>`;
  if (!booking || !site) return html`<p aria-busy="true">${t("common.loading")}</p>`;
  const product = site.products.find((p) => p.id === booking.productId);
  const live = ["tentative", "confirmed", "part_paid", "paid", "hold"].includes(booking.status);
  return html`
    <h2>${t("book.yourBooking", { reference: booking.reference })}</h2>
    <dl class="figures">
      <dt>${t("book.what")}</dt><dd>${product?.name ?? ""}</dd>
      <dt>${t("book.when")}</dt><dd data-testid="when">${dateTime(booking.startTime, site.timezone)}</dd>
      <dt>${t("book.people")}</dt><dd>${booking.partySize}</dd>
      <dt>${t("day.status")}</dt><dd data-testid="status">${t(/** @type {any} */ (`status.${booking.status}`))}</dd>
      <dt>${t("wizard.price.total")}</dt><dd>${money(booking.price.total, booking.price.currency)}</dd>
    </dl>
    ${notice ? html`<p role="status">${notice}</p>` : null}
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    ${live && !moving && !confirming
      ? html`<p class="muted">${t(/** @type {any} */ (`book.policy.${site.bookingPolicies.cancellationPolicy}`))}</p>
        <div class="buttons">
          <button type="button" onClick=${() => setMoving(true)}>${t("book.move")}</button>
          <button type="button" class="danger" onClick=${() => setConfirming(true)}>${t("book.cancel")}</button>
        </div>`
      : null}
    ${confirming
      ? html`<div class="confirm-box" role="group" aria-labelledby="cancel-q">
          <p id="cancel-q"><strong>${t("book.cancelSure")}</strong></p>
          <div class="buttons">
            <button type="button" class="danger" disabled=${busy} onClick=${cancel}>${t("book.cancelYes")}</button>
            <button type="button" onClick=${() => setConfirming(false)}>${t("cancel.keep")}</button>
          </div>
        </div>`
      : null}
    ${moving && product
      ? html`<${Move} api=${api} headers=${headers} booking=${booking} site=${site} product=${product}
          done=${(/** @type {Schemas["BookingResponse"] | null} */ b) => {
            setMoving(false);
            if (b) {
              setBooking(b);
              setNotice(t("book.moved", { when: dateTime(b.startTime, site.timezone) }));
            }
          }} />`
      : null}
  `;
}

/**
 * Choosing another time for the same party, and moving the booking there.
 * @param {object} props
 * @param {import("../shared/api.js").Client} props.api
 * @param {Record<string, string>} props.headers
 * @param {Schemas["BookingResponse"]} props.booking
 * @param {Schemas["SiteConfig"]} props.site
 * @param {Schemas["PublicProduct"]} props.product
 * @param {(b: Schemas["BookingResponse"] | null) => void} props.done
 */
function Move({ api, headers, booking, site, product, done }) {
  const [date, setDate] = useState(new Intl.DateTimeFormat("en-CA", { timeZone: site.timezone }).format(new Date(booking.startTime)));
  const [slots, setSlots] = useState(/** @type {Schemas["AvailabilitySlot"][] | null} */ (null));
  const [error, setError] = useState("");
  useEffect(() => {
    setSlots(null);
    ok(
      api.GET("/api/v1/availability", {
        params: { query: { site_id: site.siteId, product_id: product.id, date_from: date, party_size: booking.partySize } },
      }),
    )
      .then((a) => setSlots(a.slots.filter((s) => s.slotId !== booking.slotId)))
      .catch((e) => setError(e.message));
  }, [date]);

  /** @param {string} slotId */
  async function move(slotId) {
    try {
      done(await ok(api.POST("/api/v1/bookings/{id}/reschedule", { headers, params: { path: { id: booking.id } }, body: { slotId } })));
    } catch (e) {
      setError(/** @type {any} */ (e).message);
    }
  }

  return html`<section aria-labelledby="move-title">
    <h3 id="move-title">${t("book.moveTitle")}</h3>
    <label>${t("book.day")}
      <input type="date" value=${date} onChange=${(/** @type {any} */ e) => e.currentTarget.value && setDate(e.currentTarget.value)} />
    </label>
    <h4>${longDate(date)}</h4>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    ${slots && slots.length === 0 ? html`<p>${t("book.noTimes")}</p>` : null}
    ${slots
      ? html`<ul class="times">${slots.map(
          (s) => html`<li><button type="button" class="time" onClick=${() => move(s.slotId)}>
            <strong>${time(s.startsAt, site.timezone)}</strong></button></li>`,
        )}</ul>`
      : html`<p aria-busy="true">${t("common.loading")}</p>`}
    <button type="button" onClick=${() => done(null)}>${t("common.cancel")}</button>
  </section>`;
}
