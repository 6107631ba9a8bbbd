// Waiver texts (setup): each waiver in its languages and versions, publishing a new text
// (a new version replaces the one in use; signatures keep the text they agreed to),
// taking one out of use, and how many years signed waivers are kept.
import { html, useState, useEffect } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";
import { dateTime } from "../shared/format.js";
import { can } from "./session.js";
import { notify } from "./notices.js";

/** @typedef {import("../shared/api.js").Schemas} Schemas */

/** @param {import("./main.js").PageContext} props */
export function WaiverTemplates({ api, session }) {
  const [list, setList] = useState(/** @type {Schemas["WaiverTemplateDto"][] | null} */ (null));
  const [products, setProducts] = useState(/** @type {Schemas["ProductDto"][]} */ ([]));
  const [form, setForm] = useState(
    /** @type {{name: string, locale: string, content: string, productIds: string[], siteIds: string[]} | null} */ (null),
  );
  const [years, setYears] = useState("");
  const [error, setError] = useState("");
  const mayWrite = can(session, "admin:write");

  async function load() {
    try {
      const r = await ok(api.GET("/api/v1/waivers/templates"));
      setList(r.templates);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }
  useEffect(() => {
    void load();
    ok(api.GET("/api/v1/admin/products")).then((r) => setProducts(r.items ?? [])).catch(() => {});
    ok(api.GET("/api/v1/admin/waivers/retention")).then((r) => setYears(String(r.retentionYears ?? 7))).catch(() => {});
  }, []);

  /** @param {Event} e */
  async function publish(e) {
    e.preventDefault();
    if (!form) return;
    try {
      const made = await ok(
        api.POST("/api/v1/waivers/templates", {
          body: {
            name: form.name.trim(),
            locale: form.locale.trim(),
            content: form.content,
            productIds: form.productIds,
            siteIds: form.siteIds,
          },
        }),
      );
      notify(t("waiverTemplates.published", { name: made.name, version: made.version }));
      setForm(null);
      setError("");
      await load();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  }

  /** @param {Schemas["WaiverTemplateDto"]} tpl */
  async function retire(tpl) {
    try {
      await ok(api.PATCH("/api/v1/waivers/templates/{templateId}/deactivate", { params: { path: { templateId: tpl.id } } }));
      notify(t("waiverTemplates.retired", { name: tpl.name, version: tpl.version }));
      await load();
    } catch (err) {
      notify(err instanceof Error ? err.message : String(err), "error");
    }
  }

  /** @param {Event} e */
  async function keep(e) {
    e.preventDefault();
    try {
      await ok(api.PUT("/api/v1/admin/waivers/retention", { body: { retentionYears: Number(years) } }));
      notify(t("waiverTemplates.retentionSaved", { n: years }));
    } catch (err) {
      notify(err instanceof Error ? err.message : String(err), "error");
    }
  }

  const productName = (/** @type {string} */ id) => products.find((p) => p.id === id)?.name ?? id;
  return html`
    <h1>${t("nav.waivers")}</h1>
    <p class="muted">${t("waiverTemplates.help")}</p>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <table class="bookings list" data-testid="waiver-templates"><thead><tr><th scope="col">${t("waiverTemplates.name")}</th>
      <th scope="col">${t("waiverTemplates.locale")}</th><th scope="col">${t("waiverTemplates.version")}</th>
      <th scope="col">${t("waiverTemplates.covers")}</th><th scope="col">${t("setup.active")}</th><th scope="col"></th></tr></thead>
      <tbody>${(list ?? []).map(
        (w) => html`<tr><td>${w.name}</td><td>${w.locale}</td><td>${w.version}
            <br /><span class="muted">${dateTime(w.createdAt, Intl.DateTimeFormat().resolvedOptions().timeZone)}</span></td>
          <td>${w.productIds.length === 0 ? t("waiverTemplates.allProducts") : w.productIds.map(productName).join(", ")}</td>
          <td>${w.isActive ? t("setup.yes") : t("setup.no")}</td>
          <td>${w.isActive && mayWrite ? html`<button type="button" onClick=${() => retire(w)}>${t("waiverTemplates.retire")}</button>` : null}
            ${mayWrite ? html`<button type="button" onClick=${() => setForm({ name: w.name, locale: w.locale, content: w.content, productIds: w.productIds, siteIds: w.siteIds })}>
              ${t("waiverTemplates.newVersion")}</button>` : null}</td></tr>`,
      )}</tbody></table>
    ${mayWrite && form
      ? html`<form class="fields panel" onSubmit=${publish} aria-label=${t("waiverTemplates.form")}>
          <label>${t("waiverTemplates.name")}<input value=${form.name} required maxlength="200"
            onInput=${(/** @type {any} */ e) => setForm({ ...form, name: e.currentTarget.value })} /></label>
          <label>${t("waiverTemplates.locale")}<input value=${form.locale} required maxlength="35" placeholder="en"
            onInput=${(/** @type {any} */ e) => setForm({ ...form, locale: e.currentTarget.value })} /></label>
          <label>${t("waiverTemplates.content")}<textarea rows="12" required
            onInput=${(/** @type {any} */ e) => setForm({ ...form, content: e.currentTarget.value })}>${form.content}</textarea></label>
          <fieldset><legend>${t("waiverTemplates.covers")}</legend>
            <p class="muted">${t("waiverTemplates.coversHelp")}</p>
            ${products.map(
              (p) => html`<label class="check"><input type="checkbox" checked=${form.productIds.includes(p.id)}
                onChange=${(/** @type {any} */ e) => setForm({
                  ...form,
                  productIds: e.currentTarget.checked ? [...form.productIds, p.id] : form.productIds.filter((x) => x !== p.id),
                })} />${p.name}</label>`,
            )}
          </fieldset>
          <div class="buttons"><button type="submit" class="primary">${t("waiverTemplates.publish")}</button>
            <button type="button" onClick=${() => setForm(null)}>${t("common.cancel")}</button></div>
        </form>`
      : mayWrite
        ? html`<p><button type="button" class="primary" onClick=${() => setForm({ name: "", locale: "en", content: "", productIds: [], siteIds: [] })}>
            ${t("waiverTemplates.new")}</button></p>`
        : null}
    <h2>${t("waiverTemplates.retention")}</h2>
    <form class="row" onSubmit=${keep}>
      <label>${t("waiverTemplates.years")}<input type="number" min="1" max="100" required value=${years} disabled=${!mayWrite}
        onInput=${(/** @type {any} */ e) => setYears(e.currentTarget.value)} /></label>
      ${mayWrite ? html`<button type="submit">${t("booking.save")}</button>` : null}
    </form>
  `;
}
