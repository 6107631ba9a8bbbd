// The wizard's first steps: what is booked. Site, product, date and time with the party,
// variant and add-ons; nothing is held yet.
import { html, useState, useEffect } from "../shared/ui.js";
import { RoomChoices } from "../shared/rooms.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";
import { money, time, addDays } from "../shared/format.js";
import { TypeCountFields, fitCounts, typesQuery } from "../shared/type-counts.js";

/** @typedef {import("./wizard.js").StepProps} StepProps */
/** @typedef {import("../shared/api.js").Schemas} Schemas */

/**
 * A list loaded from the API when the step opens.
 * @template T
 * @param {() => Promise<T>} load
 * @param {any[]} deps
 * @returns {[T | null, string]}
 */
function useLoad(load, deps) {
  const [value, setValue] = useState(/** @type {T | null} */ (null));
  const [error, setError] = useState("");
  useEffect(() => {
    setValue(null);
    load()
      .then(setValue)
      .catch((e) => setError(e.message));
  }, deps);
  return [value, error];
}

/**
 * Radio buttons of a step with a Next button.
 * @template T
 * @param {object} props
 * @param {string} props.name
 * @param {T[]} props.items
 * @param {(item: T) => string} props.id
 * @param {(item: T) => any} props.label
 * @param {T | null} props.chosen
 * @param {(item: T) => void} props.choose
 * @param {() => void} props.next
 */
function Choice({ name, items, id, label, chosen, choose, next }) {
  return html`
    <form onSubmit=${(/** @type {Event} */ e) => (e.preventDefault(), chosen && next())}>
      <fieldset class="choices">
        <legend class="visually-hidden">${name}</legend>
        ${items.map(
          (item) => html`<label class="choice">
            <input type="radio" name=${name} value=${id(item)} checked=${!!chosen && id(chosen) === id(item)}
              onChange=${() => choose(item)} />
            <span>${label(item)}</span>
          </label>`,
        )}
      </fieldset>
      <button type="submit" class="primary" disabled=${!chosen}>${t("wizard.next")}</button>
    </form>
  `;
}

/** @param {StepProps} props */
export function SiteStep({ api, draft, update, next }) {
  const [sites, error] = useLoad(async () => (await ok(api.GET("/api/v1/admin/sites"))).items, []);
  if (error) return html`<p class="error" role="alert">${error}</p>`;
  if (!sites) return html`<p aria-busy="true">${t("common.loading")}</p>`;
  const active = sites.filter((s) => s.isActive);
  return html`<${Choice} name="site" items=${active} id=${(/** @type {Schemas["SiteDto"]} */ s) => s.id}
    label=${(/** @type {Schemas["SiteDto"]} */ s) => html`<strong>${s.name}</strong> <span class="muted">${s.timezone} · ${s.currency}</span>`}
    chosen=${draft.site} choose=${(/** @type {Schemas["SiteDto"]} */ site) => update({ site, product: null, slot: null })}
    next=${next} />`;
}

/** @param {StepProps} props */
export function ProductStep({ api, draft, update, next }) {
  const [products, error] = useLoad(async () => (await ok(api.GET("/api/v1/admin/products"))).items, []);
  if (error) return html`<p class="error" role="alert">${error}</p>`;
  if (!products) return html`<p aria-busy="true">${t("common.loading")}</p>`;
  const here = products.filter((p) => p.isActive && p.siteId === draft.site?.id);
  if (here.length === 0) return html`<p>${t("wizard.noProducts")}</p>`;
  return html`<${Choice} name="product" items=${here} id=${(/** @type {Schemas["ProductDto"]} */ p) => p.id}
    label=${(/** @type {Schemas["ProductDto"]} */ p) =>
      html`<strong>${p.name}</strong> <span class="muted">${t("wizard.productFacts", {
        minutes: p.durationMins,
        capacity: p.capacity,
        price: money(p.basePrice, p.currency),
      })}</span>`}
    chosen=${draft.product}
    choose=${(/** @type {Schemas["ProductDto"]} */ product) =>
      update({ product, slot: null, variant: null, addons: {}, rooms: [], types: {} })}
    next=${next} />`;
}

/** @param {StepProps} props */
export function TimeStep({ api, draft, update, next }) {
  const site = /** @type {Schemas["SiteDto"]} */ (draft.site);
  const product = /** @type {Schemas["ProductDto"]} */ (draft.product);
  const today = new Intl.DateTimeFormat("en-CA", { timeZone: site.timezone }).format(new Date());
  const date = draft.date || today;
  const [typed, setTyped] = useState(date);
  useEffect(() => setTyped(date), [date]);
  const [slots, setSlots] = useState(/** @type {Schemas["AvailabilitySlot"][] | null} */ (null));
  const [error, setError] = useState("");
  const types = draft.types ?? {};
  const byType = typesQuery(types);
  useEffect(() => {
    setSlots(null);
    setError("");
    // Only the latest question's answer is shown (an earlier one may arrive later).
    let current = true;
    ok(
      api.GET("/api/v1/availability", {
        params: {
          query: {
            site_id: site.id,
            product_id: product.id,
            date_from: date,
            party_size: draft.partySize,
            ...(byType ? { participant_types: byType } : {}),
          },
        },
      }),
    )
      .then((a) => current && setSlots(a.slots))
      .catch((e) => current && setError(e.message));
    return () => {
      current = false;
    };
  }, [date, draft.partySize, byType]);

  return html`
    <form onSubmit=${(/** @type {Event} */ e) => (e.preventDefault(), draft.slot && next())}>
      <div class="row">
        <label>
          ${t("wizard.date")}
          <input type="date" value=${typed} min=${today} required
            onInput=${(/** @type {any} */ e) => {
              // Typed digit by digit the year passes through 0002, 0020…: only a whole
              // date from today on is taken.
              const v = e.currentTarget.value;
              setTyped(v);
              if (/^\d{4}-\d{2}-\d{2}$/.test(v) && v >= today) update({ date: v, slot: null });
            }} />
        </label>
        <button type="button" onClick=${() => update({ date: addDays(date, 1), slot: null })}>${t("day.next")}</button>
        <label>
          ${t("wizard.partySize")}
          <input type="number" min="1" max=${product.capacity} value=${draft.partySize} required
            onChange=${(/** @type {any} */ e) => {
              const n = Number(e.currentTarget.value);
              if (n >= 1) update({ partySize: n, slot: null, types: fitCounts(types, n) });
            }} />
        </label>
      </div>
      <${TypeCountFields} types=${product.participantTypes} partySize=${draft.partySize} counts=${types}
        currency=${product.currency} fullPrice=${product.basePrice}
        onChange=${(/** @type {any} */ c) => update({ types: c, slot: null })} />
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      ${!slots && !error ? html`<p aria-busy="true">${t("common.loading")}</p>` : null}
      ${slots && slots.length === 0 ? html`<p>${t("wizard.noSlots")}</p>` : null}
      ${slots && slots.length > 0
        ? html`<fieldset class="choices slots">
            <legend>${t("wizard.times")}</legend>
            ${slots.map(
              (s) => html`<label class="choice">
                <input type="radio" name="slot" value=${s.slotId} checked=${draft.slot?.slotId === s.slotId}
                  onChange=${() => update({ slot: s, date })} />
                <span><strong>${time(s.startsAt, site.timezone)}</strong><br />
                  <span class="muted">${t("wizard.slotFacts", {
                    free: s.availableCapacity,
                    price: money(s.pricingPreview.grandTotal, s.pricingPreview.currency),
                  })}</span></span>
              </label>`,
            )}
          </fieldset>`
        : null}
      <button type="submit" class="primary" disabled=${!draft.slot}>${t("wizard.next")}</button>
    </form>
  `;
}

/** @param {StepProps} props */
export function VariantStep({ api, draft, update, next }) {
  const product = /** @type {Schemas["ProductDto"]} */ (draft.product);
  const [variants, error] = useLoad(
    async () =>
      (await ok(api.GET("/api/v1/admin/products/{id}/variants", { params: { path: { id: product.id } } }))).items,
    [product.id],
  );
  if (error) return html`<p class="error" role="alert">${error}</p>`;
  if (!variants) return html`<p aria-busy="true">${t("common.loading")}</p>`;
  const active = variants.filter((v) => v.isActive);
  /** @type {(Schemas["VariantDto"] | null)[]} */
  const options = [null, ...active];
  return html`
    <form onSubmit=${(/** @type {Event} */ e) => (e.preventDefault(), next())}>
      ${active.length === 0 ? html`<p>${t("wizard.noVariants")}</p>` : null}
      <fieldset class="choices">
        <legend class="visually-hidden">${t("wizard.step.variant")}</legend>
        ${options.map(
          (v) => html`<label class="choice">
            <input type="radio" name="variant" checked=${(draft.variant?.id ?? null) === (v?.id ?? null)}
              onChange=${() => update({ variant: v })} />
            <span>${v ? html`<strong>${v.name}</strong> <span class="muted">${v.description}</span>` : t("wizard.standard")}</span>
          </label>`,
        )}
      </fieldset>
      <button type="submit" class="primary">${t("wizard.next")}</button>
    </form>
  `;
}

/** @param {StepProps} props */
export function AddonStep({ api, draft, update, next }) {
  const product = /** @type {Schemas["ProductDto"]} */ (draft.product);
  const [addons, error] = useLoad(
    async () => (await ok(api.GET("/api/v1/admin/products/{id}/addons", { params: { path: { id: product.id } } }))).items,
    [product.id],
  );
  if (error) return html`<p class="error" role="alert">${error}</p>`;
  if (!addons) return html`<p aria-busy="true">${t("common.loading")}</p>`;
  // Rooms and equipment are chosen by their time, below.
  const offered = addons.filter((a) => a.available && a.addonType !== "resource");
  /** @param {string} id @param {number} n */
  const setQty = (id, n) => {
    const next = { ...draft.addons };
    if (n > 0) next[id] = n;
    else delete next[id];
    update({ addons: next });
  };
  return html`
    <form onSubmit=${(/** @type {Event} */ e) => (e.preventDefault(), next())}>
      ${offered.length === 0 && !addons.some((a) => a.available && a.addonType === "resource")
        ? html`<p>${t("wizard.noAddons")}</p>`
        : null}
      ${offered.map((a) => {
        const price = a.unitPrice ?? a.price ?? 0;
        const label = html`<strong>${a.name}</strong>
          <span class="muted">${money(price, a.currency)} ${t(/** @type {any} */ (`wizard.addonPrice.${a.priceType}`))}</span>`;
        return a.mode === "free_qty"
          ? html`<label class="addon">${label}
              <input type="number" min="0" max=${a.maxQuantity ?? 99} value=${draft.addons[a.id] ?? 0}
                onChange=${(/** @type {any} */ e) => setQty(a.id, Number(e.currentTarget.value))} /></label>`
          : html`<label class="choice"><input type="checkbox" checked=${!!draft.addons[a.id]}
                onChange=${(/** @type {any} */ e) => setQty(a.id, e.currentTarget.checked ? 1 : 0)} />
              <span>${label}${a.mode === "per_participant" ? html` <span class="muted">${t("wizard.perPerson")}</span>` : null}</span></label>`;
      })}
      <${RoomChoices} api=${api} productId=${product.id} slot=${draft.slot} tz=${draft.site?.timezone ?? "UTC"}
        partySize=${draft.partySize} rooms=${draft.rooms} onChange=${(/** @type {any} */ rooms) => update({ rooms })} />
      <button type="submit" class="primary">${t("wizard.next")}</button>
    </form>
  `;
}
