// Rooms and equipment around an activity (resource add-ons, spec Part B 4.2), for the
// console's wizard and the booking widget: for each one the activity offers, the windows
// before, during or after the chosen session, priced for the party and marked when taken.
import { html, useState, useEffect } from "./ui.js";
import { t } from "./i18n.js";
import { ok } from "./api.js";
import { money, time } from "./format.js";

/** @typedef {import("../shared/api.js").Schemas} Schemas */

/**
 * A room or piece of equipment chosen, one per offer.
 * @typedef {{configId: string, addonId: string, name: string, startsAt: string, endsAt: string, durationMins: number, price: number, currency: string}} RoomChoice
 */

/**
 * @param {{api: import("./api.js").Client, productId: string, slot: Schemas["AvailabilitySlot"], tz: string,
 *   partySize: number, rooms: RoomChoice[], onChange: (rooms: RoomChoice[]) => void, disabled?: boolean}} props
 */
export function RoomChoices({ api, productId, slot, tz, partySize, rooms, onChange, disabled }) {
  const [offers, setOffers] = useState(/** @type {{config: Schemas["ConfigDto"], windows: Schemas["WindowDto"][]}[] | null} */ (null));
  const [error, setError] = useState("");
  useEffect(() => {
    (async () => {
      const { configs } = await ok(api.GET("/api/v1/availability/resource-addons", { params: { query: { product_id: productId } } }));
      const windows = await Promise.all(
        configs.map((c) =>
          ok(api.GET("/api/v1/availability/resource-addons/{configId}/windows", {
            params: {
              path: { configId: c.id },
              query: { activity_starts_at: slot.startsAt, activity_ends_at: slot.endsAt, party_size: partySize },
            },
          })),
        ),
      );
      setOffers(configs.map((config, i) => ({ config, windows: windows[i].windows })));
    })().catch((e) => setError(e instanceof Error ? e.message : String(e)));
  }, [productId, slot.slotId, partySize]);

  if (error) return html`<p class="error" role="alert">${error}</p>`;
  // An empty place until the rooms are loaded, or when the activity offers none.
  if (!offers || offers.length === 0) return html`<div class="rooms"></div>`;
  /** @param {Schemas["ConfigDto"]} c @param {Schemas["WindowDto"] | null} w */
  const choose = (c, w) =>
    onChange([
      ...rooms.filter((r) => r.configId !== c.id),
      ...(w
        ? [{ configId: c.id, addonId: c.addonId, name: c.addonName, startsAt: w.startsAt, endsAt: w.endsAt, durationMins: w.durationMins, price: w.price, currency: w.currency }]
        : []),
    ]);
  return html`<div class="rooms">${offers.map(({ config, windows }) => {
    const chosen = rooms.find((r) => r.configId === config.id);
    return html`<fieldset class="rooms" data-room=${config.addonName}>
      <legend>${config.addonName}</legend>
      <label class="choice"><input type="radio" name=${`room-${config.id}`} checked=${!chosen} disabled=${disabled} onChange=${() => choose(config, null)} />
        <span>${t("wizard.room.none")}</span></label>
      ${windows.map((w) => {
        const when = `${time(w.startsAt, tz)}–${time(w.endsAt, tz)}`;
        return html`<label class="choice"><input type="radio" name=${`room-${config.id}`} disabled=${disabled || !w.isAvailable}
            checked=${chosen?.startsAt === w.startsAt && chosen?.endsAt === w.endsAt} onChange=${() => choose(config, w)} />
          <span>${t(/** @type {any} */ (`wizard.room.${w.position}`))} ${when}
            <span class="muted">${money(w.price, w.currency)}${w.isAvailable ? "" : ` · ${t("wizard.room.taken")}`}</span></span></label>`;
      })}
      ${windows.length === 0 ? html`<p class="muted">${t("wizard.room.noWindow")}</p>` : null}
    </fieldset>`;
  })}</div>`;
}

/**
 * Adds the chosen rooms to the hold `bookingId`: the hold's price after them, or null
 * when none were chosen.
 * @param {import("./api.js").Client} api
 * @param {string} bookingId
 * @param {RoomChoice[]} rooms
 * @returns {Promise<Schemas["PricedBookingDto"] | null>}
 */
export async function addRooms(api, bookingId, rooms) {
  if (rooms.length === 0) return null;
  const added = await ok(api.POST("/api/v1/bookings/{id}/resource-addons", {
    params: { path: { id: bookingId } },
    body: { selections: rooms.map((r) => ({ configId: r.configId, startsAt: r.startsAt, endsAt: r.endsAt, durationMins: r.durationMins })) },
  }));
  const p = added.pricingUpdate;
  return {
    id: bookingId,
    status: "hold",
    subtotal: p.newSubtotal,
    promotion_discount: 0,
    voucher_applied: 0,
    tax_amount: p.newTaxTotal,
    total: p.newGrandTotal,
    currency: p.currency,
    pricing_hash: p.pricingHash,
    updated_at: new Date().toISOString(),
  };
}
