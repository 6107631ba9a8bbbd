// Participant types with their own price (a child's ticket), for the booking widget and
// the console's wizard: how many of the party's places are of each type. The places not
// given a type are at the activity's price.
import { html } from "./ui.js";
import { t } from "./i18n.js";
import { money } from "./format.js";

/** @typedef {import("./api.js").Schemas} Schemas */
/** @typedef {Record<string, number>} TypeCounts type → places */

/**
 * The counts that still fit a party of `partySize`: a type keeps its places as far as
 * they fit, in the product's order (the order the fields keep them in).
 * @param {TypeCounts} counts
 * @param {number} partySize
 * @returns {TypeCounts}
 */
export function fitCounts(counts, partySize) {
  let left = partySize;
  /** @type {TypeCounts} */
  const out = {};
  for (const [type, n] of Object.entries(counts)) {
    const kept = Math.min(n, left);
    left -= kept;
    if (kept > 0) out[type] = kept;
  }
  return out;
}

/**
 * The availability query's `participant_types` (`child:2,senior:1`), or undefined.
 * @param {TypeCounts} counts
 */
export function typesQuery(counts) {
  const pairs = Object.entries(counts).filter(([, n]) => n > 0);
  return pairs.length > 0 ? pairs.map(([type, n]) => `${type}:${n}`).join(",") : undefined;
}

/**
 * A booking request's `participantTypes`.
 * @param {TypeCounts} counts
 */
export function typesBody(counts) {
  return Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([type, quantity]) => ({ type, quantity }));
}

/**
 * One number field per participant type, never more places in all than the party.
 * @param {{types: Schemas["ParticipantTypePriceDto"][], partySize: number, counts: TypeCounts,
 *   currency: string, fullPrice: number, onChange: (counts: TypeCounts) => void}} props
 */
export function TypeCountFields({ types, partySize, counts, currency, fullPrice, onChange }) {
  if (types.length === 0) return null;
  const typed = Object.values(counts).reduce((a, b) => a + b, 0);
  return html`<fieldset class="type-counts">
    <legend>${t("types.legend")}</legend>
    ${types.map((ty) => {
      const mine = counts[ty.type] ?? 0;
      const max = mine + Math.max(0, partySize - typed);
      return html`<label>${t("types.of", { name: ty.name, price: money(ty.price, currency) })}
        <input type="number" min="0" max=${max} value=${mine} inputmode="numeric"
          onChange=${(/** @type {any} */ e) => {
            const n = Math.max(0, Math.min(max, Math.floor(Number(e.currentTarget.value) || 0)));
            e.currentTarget.value = String(n);
            // In the product's order: a later smaller party gives up the last-listed first.
            onChange(Object.fromEntries(types.map((x) => [x.type, x.type === ty.type ? n : (counts[x.type] ?? 0)])));
          }} /></label>`;
    })}
    <p class="muted">${t("types.rest", { n: Math.max(0, partySize - typed), price: money(fullPrice, currency) })}</p>
  </fieldset>`;
}
