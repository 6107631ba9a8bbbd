// Vouchers: prepaid money a customer spends on bookings (gift cards, credits, single- and
// multi-use vouchers), searched, and issued by staff (a code is made when none is given).
import { html, useState, useEffect } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";
import { money } from "../shared/format.js";
import { notify } from "./notices.js";

/** @typedef {import("../shared/api.js").Schemas} Schemas */

const TYPES = /** @type {const} */ (["gift_card", "multi_use", "single_use", "loyalty_credit"]);

/** @param {import("./main.js").PageContext} props */
export function Vouchers({ api }) {
  const [search, setSearch] = useState("");
  const [query, setQuery] = useState("");
  const [list, setList] = useState(/** @type {Schemas["VoucherList"] | null} */ (null));
  const [form, setForm] = useState(/** @type {Record<string, any> | null} */ (null));
  const [error, setError] = useState("");
  const load = () =>
    ok(api.GET("/api/v1/admin/vouchers", { params: { query: { search: query || undefined, per_page: 50 } } }))
      .then(setList)
      .catch((e) => setError(e.message));
  useEffect(() => void load(), [query]);

  /** @param {Event} e */
  async function issue(e) {
    e.preventDefault();
    const v = /** @type {Record<string, any>} */ (form);
    try {
      const made = await ok(api.POST("/api/v1/admin/vouchers", {
        body: {
          type: v.type,
          original_value: Number(v.value),
          ...(v.code.trim() ? { code: v.code.trim() } : {}),
          ...(v.email.trim() ? { customer_email: v.email.trim() } : {}),
          ...(v.expires ? { expires_at: new Date(v.expires).toISOString() } : {}),
        },
      }));
      notify(t("vouchers.issued", { code: made.voucher.code }));
      setForm(null);
      setError("");
      load();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  }

  return html`
    <h1>${t("vouchers.title")}</h1>
    <form class="row" role="search" onSubmit=${(/** @type {Event} */ e) => (e.preventDefault(), setQuery(search.trim()))}>
      <label>${t("vouchers.search")}<input value=${search} onInput=${(/** @type {any} */ e) => setSearch(e.currentTarget.value)} /></label>
      <button type="submit">${t("bookings.search")}</button>
    </form>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <table class="bookings list"><thead><tr><th scope="col">${t("promo.code")}</th><th scope="col">${t("promo.type")}</th>
      <th scope="col">${t("vouchers.value")}</th><th scope="col">${t("vouchers.balance")}</th><th scope="col">${t("day.customer")}</th>
      <th scope="col">${t("setup.active")}</th></tr></thead>
      <tbody>${(list?.vouchers ?? []).map(
        (v) => html`<tr data-voucher=${v.code}><td><code>${v.code}</code></td><td>${t(/** @type {any} */ (`vouchers.type.${v.type}`))}</td>
          <td>${money(v.original_value, v.currency)}</td><td>${money(v.current_balance, v.currency)}</td>
          <td>${v.customer_email ?? ""}</td><td>${v.is_active ? t("setup.yes") : t("setup.no")}</td></tr>`,
      )}</tbody></table>
    ${form
      ? html`<form class="fields panel" onSubmit=${issue} aria-label=${t("vouchers.form")}>
          <label>${t("promo.type")}<select value=${form.type} onChange=${(/** @type {any} */ e) => setForm({ ...form, type: e.currentTarget.value })}>
            ${TYPES.map((x) => html`<option value=${x}>${t(`vouchers.type.${x}`)}</option>`)}</select></label>
          <label>${t("vouchers.value")}<input type="number" min="0.01" step="0.01" required value=${form.value}
            onInput=${(/** @type {any} */ e) => setForm({ ...form, value: e.currentTarget.value })} /></label>
          <label>${t("vouchers.code")}<input value=${form.code} onInput=${(/** @type {any} */ e) => setForm({ ...form, code: e.currentTarget.value })} /></label>
          <label>${t("vouchers.email")}<input type="email" value=${form.email} onInput=${(/** @type {any} */ e) => setForm({ ...form, email: e.currentTarget.value })} /></label>
          <label>${t("promo.expires")}<input type="date" value=${form.expires} onInput=${(/** @type {any} */ e) => setForm({ ...form, expires: e.currentTarget.value })} /></label>
          <div class="buttons"><button type="submit" class="primary">${t("vouchers.issue")}</button>
            <button type="button" onClick=${() => setForm(null)}>${t("common.cancel")}</button></div>
        </form>`
      : html`<p><button type="button" class="primary" onClick=${() => setForm({ type: "gift_card", value: "50", code: "", email: "", expires: "" })}>
          ${t("vouchers.new")}</button></p>`}
  `;
}
