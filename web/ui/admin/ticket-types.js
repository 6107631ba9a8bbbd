// A product's tickets by type (a child's ticket, a senior's): each with its own price per
// person. Staff give a name and a price; the type's key is made from the name once and
// then kept, so bookings made with it keep their type.
import { html } from "../shared/ui.js";
import { t } from "../shared/i18n.js";

/** @typedef {{type: string, name: string, price: number | string}} TicketType */

/**
 * A key for a new type: its name in lower_snake_case, unique among `taken`.
 * @param {string} name
 * @param {string[]} taken
 */
export function keyOf(name, taken) {
  const base =
    name
      .normalize("NFKD")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "_")
      .replace(/^_+|_+$/g, "")
      .slice(0, 36) || "type";
  let key = base;
  for (let i = 2; taken.includes(key); i++) key = `${base}_${i}`;
  return key;
}

/**
 * The types as the API takes them: keys made for new rows, rows without a name left out.
 * @param {TicketType[]} rows
 */
export function ticketTypesBody(rows) {
  /** @type {string[]} */
  const taken = rows.map((r) => r.type).filter(Boolean);
  return rows
    .filter((r) => String(r.name).trim())
    .map((r) => {
      const type = r.type || keyOf(r.name, taken);
      taken.push(type);
      return { type, name: r.name.trim(), price: Number(r.price) };
    });
}

/** @param {{rows: TicketType[], onChange: (rows: TicketType[]) => void}} props */
export function TicketTypes({ rows, onChange }) {
  /** @param {number} i @param {Partial<TicketType>} change */
  const set = (i, change) => onChange(rows.map((r, j) => (j === i ? { ...r, ...change } : r)));
  return html`<fieldset class="ticket-types">
    <legend>${t("types.setupLegend")}</legend>
    <p class="muted">${t("types.setupHelp")}</p>
    ${rows.map(
      (r, i) => html`<div class="row" data-ticket-type=${r.name}>
        <label>${t("types.name")}<input value=${r.name} required maxlength="100"
          onInput=${(/** @type {any} */ e) => set(i, { name: e.currentTarget.value })} /></label>
        <label>${t("types.price")}<input type="number" min="0" step="0.01" value=${r.price} required
          onInput=${(/** @type {any} */ e) => set(i, { price: e.currentTarget.value })} /></label>
        <button type="button" onClick=${() => onChange(rows.filter((_, j) => j !== i))}
          aria-label=${t("types.remove", { name: r.name || String(i + 1) })}>${t("types.removeShort")}</button>
      </div>`,
    )}
    ${rows.length < 10
      ? html`<button type="button" onClick=${() => onChange([...rows, { type: "", name: "", price: "" }])}>${t("types.add")}</button>`
      : null}
  </fieldset>`;
}
