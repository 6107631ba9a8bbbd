// Promotions: the codes customers and staff apply (spec Part A 4.8), listed by status,
// added, switched on and off, with each code's statistics.
import { html, useState, useEffect } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";
import { notify } from "./notices.js";

/** @typedef {import("../shared/api.js").Schemas} Schemas */

const TYPES = /** @type {const} */ (["percentage", "fixed_amount"]);

/** @param {import("./main.js").PageContext} props */
export function Promotions({ api }) {
  const [status, setStatus] = useState(/** @type {"active" | "expired" | "upcoming" | "all"} */ ("all"));
  const [list, setList] = useState(/** @type {Schemas["PromotionDto"][] | null} */ (null));
  const [form, setForm] = useState(/** @type {Record<string, any> | null} */ (null));
  const [stats, setStats] = useState(/** @type {Schemas["PromotionStatsResponse"] | null} */ (null));
  const [error, setError] = useState("");

  const load = () =>
    ok(api.GET("/api/v1/admin/promotions", { params: { query: { status, per_page: 100 } } }))
      .then((r) => setList(r.promotions))
      .catch((e) => setError(e.message));
  useEffect(() => void load(), [status]);

  /** @param {Event} e */
  async function create(e) {
    e.preventDefault();
    const v = /** @type {Record<string, any>} */ (form);
    try {
      await ok(
        api.POST("/api/v1/admin/promotions", {
          body: {
            code: v.code.trim(),
            name: v.name.trim(),
            type: v.type,
            discount_value: Number(v.value),
            starts_at: new Date(v.starts).toISOString(),
            ...(v.expires ? { expires_at: new Date(v.expires).toISOString() } : {}),
            ...(v.limit ? { usage_limit: Number(v.limit) } : {}),
            is_stackable: !!v.stackable,
            is_public: !!v.public,
          },
        }),
      );
      notify(t("setup.saved"));
      setForm(null);
      setError("");
      load();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  }

  /** @param {Schemas["PromotionDto"]} p */
  async function toggle(p) {
    try {
      await ok(api.PATCH("/api/v1/admin/promotions/{id}", { params: { path: { id: p.id } }, body: { is_active: !p.is_active } }));
      load();
    } catch (err) {
      notify(err instanceof Error ? err.message : String(err), "error");
    }
  }

  /** @param {Schemas["PromotionDto"]} p */
  async function show(p) {
    try {
      setStats(await ok(api.GET("/api/v1/admin/promotions/{id}/stats", { params: { path: { id: p.id } } })));
    } catch (err) {
      notify(err instanceof Error ? err.message : String(err), "error");
    }
  }

  const today = new Date().toISOString().slice(0, 10);
  return html`
    <h1>${t("promo.title")}</h1>
    <label>${t("day.status")}
      <select value=${status} onChange=${(/** @type {any} */ e) => setStatus(e.currentTarget.value)}>
        ${["all", "active", "upcoming", "expired"].map((s) => html`<option value=${s}>${t(/** @type {any} */ (`promo.status.${s}`))}</option>`)}
      </select></label>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <table class="bookings list"><thead><tr><th scope="col">${t("promo.code")}</th><th scope="col">${t("setup.name")}</th>
      <th scope="col">${t("promo.discount")}</th><th scope="col">${t("promo.used")}</th><th scope="col">${t("setup.active")}</th><th scope="col"></th></tr></thead>
      <tbody>${(list ?? []).map(
        (p) => html`<tr data-promotion=${p.code}><td><code>${p.code}</code></td><td>${p.name}</td>
          <td>${p.type === "percentage" ? `${p.discount_value} %` : `${p.discount_value} ${p.currency ?? ""}`}</td>
          <td>${p.usage_count}${p.usage_limit ? ` / ${p.usage_limit}` : ""}</td>
          <td>${p.is_active ? t("setup.yes") : t("setup.no")}</td>
          <td class="actions"><button type="button" onClick=${() => show(p)}>${t("promo.stats")}</button>
            <button type="button" onClick=${() => toggle(p)}>${p.is_active ? t("promo.off") : t("promo.on")}</button></td></tr>`,
      )}</tbody></table>
    ${stats
      ? html`<section class="panel" aria-labelledby="stats-title" data-testid="promo-stats">
          <h2 id="stats-title">${t("promo.statsOf", { code: stats.promotion.code })}</h2>
          <dl class="figures">
            <dt>${t("promo.uses")}</dt><dd>${stats.statistics.total_usage_count}</dd>
            <dt>${t("promo.customers")}</dt><dd>${stats.statistics.unique_customers}</dd>
            <dt>${t("promo.given")}</dt><dd>${stats.statistics.total_discount_given.toFixed(2)}</dd>
            <dt>${t("promo.average")}</dt><dd>${stats.statistics.average_discount_per_use.toFixed(2)}</dd>
            <dt>${t("promo.remaining")}</dt><dd>${stats.statistics.remaining_uses ?? t("promo.unlimited")}</dd>
          </dl>
          <button type="button" onClick=${() => setStats(null)}>${t("common.close")}</button>
        </section>`
      : null}
    ${form
      ? html`<form class="fields panel" onSubmit=${create} aria-label=${t("promo.form")}>
          <label>${t("promo.code")}<input required maxlength="50" value=${form.code}
            onInput=${(/** @type {any} */ e) => setForm({ ...form, code: e.currentTarget.value })} /></label>
          <label>${t("setup.name")}<input required value=${form.name}
            onInput=${(/** @type {any} */ e) => setForm({ ...form, name: e.currentTarget.value })} /></label>
          <label>${t("promo.type")}<select value=${form.type} onChange=${(/** @type {any} */ e) => setForm({ ...form, type: e.currentTarget.value })}>
            ${TYPES.map((x) => html`<option value=${x}>${t(`promo.type.${x}`)}</option>`)}</select></label>
          <label>${t("promo.value")}<input type="number" min="0" step="0.01" required value=${form.value}
            onInput=${(/** @type {any} */ e) => setForm({ ...form, value: e.currentTarget.value })} /></label>
          <label>${t("promo.starts")}<input type="date" required value=${form.starts}
            onInput=${(/** @type {any} */ e) => setForm({ ...form, starts: e.currentTarget.value })} /></label>
          <label>${t("promo.expires")}<input type="date" value=${form.expires}
            onInput=${(/** @type {any} */ e) => setForm({ ...form, expires: e.currentTarget.value })} /></label>
          <label>${t("promo.limit")}<input type="number" min="1" value=${form.limit}
            onInput=${(/** @type {any} */ e) => setForm({ ...form, limit: e.currentTarget.value })} /></label>
          <label class="check"><input type="checkbox" checked=${form.stackable}
            onChange=${(/** @type {any} */ e) => setForm({ ...form, stackable: e.currentTarget.checked })} />${t("promo.stackable")}</label>
          <label class="check"><input type="checkbox" checked=${form.public}
            onChange=${(/** @type {any} */ e) => setForm({ ...form, public: e.currentTarget.checked })} />${t("promo.public")}</label>
          <div class="buttons"><button type="submit" class="primary">${t("booking.save")}</button>
            <button type="button" onClick=${() => setForm(null)}>${t("common.cancel")}</button></div>
        </form>`
      : html`<p><button type="button" class="primary" onClick=${() =>
          setForm({ code: "", name: "", type: "percentage", value: "10", starts: today, expires: "", limit: "", stackable: false, public: false })}>
          ${t("promo.new")}</button></p>`}
  `;
}
