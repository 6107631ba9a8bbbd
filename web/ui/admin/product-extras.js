// An activity's options (variants: another price, or an adjustment of it) and extras
// (add-ons: an item, a service or an upgrade, chosen once, in a quantity, or one per
// person), listed, added, and taken off sale (kept for the bookings that have them).
import { html, useState, useEffect } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";
import { money } from "../shared/format.js";
import { notify } from "./notices.js";

/** @typedef {import("../shared/api.js").Schemas} Schemas */

/**
 * @param {{api: import("../shared/api.js").Client, product: Schemas["ProductDto"], mayWrite: boolean}} props
 */
export function ProductExtras({ api, product, mayWrite }) {
  const id = product.id;
  const [variants, setVariants] = useState(/** @type {Schemas["VariantDto"][]} */ ([]));
  const [addons, setAddons] = useState(/** @type {Schemas["AddonDto"][]} */ ([]));
  const [variant, setVariant] = useState(/** @type {Record<string, any> | null} */ (null));
  const [addon, setAddon] = useState(/** @type {Record<string, any> | null} */ (null));
  const [error, setError] = useState("");
  const load = () =>
    Promise.all([
      ok(api.GET("/api/v1/admin/products/{id}/variants", { params: { path: { id } } })),
      ok(api.GET("/api/v1/admin/products/{id}/addons", { params: { path: { id } } })),
    ])
      .then(([v, a]) => (setVariants(v.items), setAddons(a.items)))
      .catch((e) => setError(e.message));
  useEffect(() => void load(), [id]);

  /** @param {Promise<unknown>} call */
  async function run(call) {
    try {
      await call;
      notify(t("setup.saved"));
      setVariant(null);
      setAddon(null);
      setError("");
      load();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }

  return html`<section class="panel" aria-labelledby="extras-title">
    <h2 id="extras-title">${t("extras.of", { name: product.name })}</h2>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <h3>${t("extras.options")}</h3>
    ${variants.length === 0 ? html`<p class="muted">${t("extras.noOptions")}</p>` : null}
    <ul>${variants.map(
      (v) => html`<li data-variant=${v.name}>${v.name} · ${v.priceMode === "override"
        ? money(v.priceAmount ?? 0, v.currency)
        : v.priceMode === "adjustment" ? `${(v.priceAmount ?? 0) >= 0 ? "+" : ""}${money(v.priceAmount ?? 0, v.currency)}` : t("extras.samePrice")}
        ${v.isActive ? "" : ` · ${t("gift.off")}`}
        ${mayWrite
          ? html` <button type="button" onClick=${() => run(ok(api.PATCH("/api/v1/admin/products/{id}/variants/{variantId}",
              { params: { path: { id, variantId: v.id } }, body: { isActive: !v.isActive } })))}>${v.isActive ? t("gift.stop") : t("gift.start")}</button>`
          : null}</li>`,
    )}</ul>
    ${mayWrite && !variant ? html`<button type="button" onClick=${() => setVariant({ name: "", mode: "override", amount: "" })}>${t("extras.addOption")}</button>` : null}
    ${variant
      ? html`<form class="fields" aria-label=${t("extras.option")} onSubmit=${(/** @type {Event} */ e) => (e.preventDefault(),
          run(ok(api.POST("/api/v1/admin/products/{id}/variants", {
            params: { path: { id } },
            body: { name: variant.name, priceMode: variant.mode, ...(variant.mode === "none" ? {} : { priceAmount: Number(variant.amount) }) },
          }))))}>
          <label>${t("setup.name")}<input required value=${variant.name} onInput=${(/** @type {any} */ e) => setVariant({ ...variant, name: e.currentTarget.value })} /></label>
          <label>${t("extras.priceIs")}<select value=${variant.mode} onChange=${(/** @type {any} */ e) => setVariant({ ...variant, mode: e.currentTarget.value })}>
            ${["override", "adjustment", "none"].map((m) => html`<option value=${m}>${t(/** @type {any} */ (`extras.mode.${m}`))}</option>`)}</select></label>
          ${variant.mode === "none" ? null : html`<label>${t("extras.amount")}<input type="number" step="0.01" required value=${variant.amount}
            onInput=${(/** @type {any} */ e) => setVariant({ ...variant, amount: e.currentTarget.value })} /></label>`}
          <div class="buttons"><button type="submit" class="primary">${t("booking.save")}</button>
            <button type="button" onClick=${() => setVariant(null)}>${t("common.cancel")}</button></div>
        </form>`
      : null}
    <h3>${t("extras.extras")}</h3>
    ${addons.length === 0 ? html`<p class="muted">${t("wizard.noAddons")}</p>` : null}
    <ul>${addons.map(
      (a) => html`<li data-addon=${a.name}>${a.name} · ${money(a.unitPrice ?? a.price ?? 0, a.currency)}
        ${t(/** @type {any} */ (`wizard.addonPrice.${a.priceType}`))} · ${t(/** @type {any} */ (`extras.choose.${a.mode}`))}
        ${a.available ? "" : ` · ${t("gift.off")}`}
        ${mayWrite
          ? html` <button type="button" onClick=${() => run(ok(api.PATCH("/api/v1/admin/products/{id}/addons/{addonId}",
              { params: { path: { id, addonId: a.id } }, body: { isActive: !a.available } })))}>${a.available ? t("gift.stop") : t("gift.start")}</button>`
          : null}</li>`,
    )}</ul>
    ${mayWrite && !addon ? html`<button type="button" onClick=${() => setAddon({ name: "", mode: "yesno", price: "", type: "item" })}>${t("extras.addExtra")}</button>` : null}
    ${addon
      ? html`<form class="fields" aria-label=${t("extras.extra")} onSubmit=${(/** @type {Event} */ e) => (e.preventDefault(),
          run(ok(api.POST("/api/v1/admin/products/{id}/addons", {
            params: { path: { id } },
            body: {
              name: addon.name,
              addonType: addon.type,
              mode: addon.mode,
              priceType: addon.mode === "per_participant" ? "per_person" : "fixed",
              ...(addon.mode === "yesno" ? { price: Number(addon.price) } : { unitPrice: Number(addon.price) }),
            },
          }))))}>
          <label>${t("setup.name")}<input required value=${addon.name} onInput=${(/** @type {any} */ e) => setAddon({ ...addon, name: e.currentTarget.value })} /></label>
          <label>${t("extras.kind")}<select value=${addon.type} onChange=${(/** @type {any} */ e) => setAddon({ ...addon, type: e.currentTarget.value })}>
            ${["item", "service", "upgrade"].map((k) => html`<option value=${k}>${t(/** @type {any} */ (`extras.type.${k}`))}</option>`)}</select></label>
          <label>${t("extras.chosen")}<select value=${addon.mode} onChange=${(/** @type {any} */ e) => setAddon({ ...addon, mode: e.currentTarget.value })}>
            ${["yesno", "free_qty", "per_participant"].map((m) => html`<option value=${m}>${t(/** @type {any} */ (`extras.choose.${m}`))}</option>`)}</select></label>
          <label>${t("extras.price")}<input type="number" min="0" step="0.01" required value=${addon.price}
            onInput=${(/** @type {any} */ e) => setAddon({ ...addon, price: e.currentTarget.value })} /></label>
          <div class="buttons"><button type="submit" class="primary">${t("booking.save")}</button>
            <button type="button" onClick=${() => setAddon(null)}>${t("common.cancel")}</button></div>
        </form>`
      : null}
  </section>`;
}
