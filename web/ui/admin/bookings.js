// Bookings: the search of Part A 4.1 with every filter, its summary (count, revenue, per
// status) and pages. The filters live in the page's address, so a search can be shared
// and the browser's back button returns to it.
import { html, useState, useEffect } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";
import { money, dateTime } from "../shared/format.js";
import { statusName } from "./day-sheet.js";

/** @typedef {import("../shared/api.js").Schemas} Schemas */
/** @typedef {Schemas["BookingStatus"]} Status */

/** @type {Status[]} */
const STATUSES = ["hold", "tentative", "confirmed", "part_paid", "paid", "arrived", "completed", "canceled", "no_show", "expired"];
const SORTS = ["createdAt", "startTime", "grandTotal", "customerName", "status", "bookingReference"];
const TEXT_FILTERS = ["customerName", "customerEmail", "customerPhone", "dateFrom", "dateTo", "minAmount", "maxAmount"];

/** The filters in the address, as the form holds them. */
function readFilters() {
  const q = new URLSearchParams(location.search);
  /** @type {Record<string, string>} */
  const text = {};
  for (const k of [...TEXT_FILTERS, "siteId", "sortBy", "sortOrder"]) text[k] = q.get(k) ?? "";
  return { text, statuses: /** @type {Status[]} */ (q.getAll("bookingStatus")), page: Number(q.get("page") ?? "1") || 1 };
}

/** @param {import("./main.js").PageContext} props */
export function Bookings({ api, go }) {
  const [filters, setFilters] = useState(readFilters);
  const [form, setForm] = useState(filters);
  const [result, setResult] = useState(/** @type {Schemas["SearchResponse"] | null} */ (null));
  const [sites, setSites] = useState(/** @type {Schemas["SiteDto"][]} */ ([]));
  const [error, setError] = useState("");

  useEffect(() => {
    ok(api.GET("/api/v1/admin/sites")).then((r) => setSites(r.items));
  }, []);

  useEffect(() => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(filters.text)) if (v) q.set(k, v);
    for (const s of filters.statuses) q.append("bookingStatus", s);
    if (filters.page > 1) q.set("page", String(filters.page));
    history.replaceState(null, "", `${location.pathname}${q.size ? `?${q}` : ""}`);
    setError("");
    const f = filters.text;
    const num = (/** @type {string} */ v) => (v ? Number(v) : undefined);
    ok(
      api.GET("/api/v1/admin/bookings", {
        params: {
          query: {
            customerName: f.customerName || undefined,
            customerEmail: f.customerEmail || undefined,
            customerPhone: f.customerPhone || undefined,
            siteId: f.siteId || undefined,
            dateFrom: f.dateFrom || undefined,
            dateTo: f.dateTo || undefined,
            minAmount: num(f.minAmount),
            maxAmount: num(f.maxAmount),
            bookingStatus: filters.statuses.length ? filters.statuses : undefined,
            sortBy: f.sortBy || undefined,
            sortOrder: f.sortOrder === "asc" || f.sortOrder === "desc" ? f.sortOrder : undefined,
            page: filters.page,
            limit: 25,
          },
        },
      }),
    )
      .then(setResult)
      .catch((e) => setError(e.message));
  }, [filters]);

  /** @param {string} k @param {string} v */
  const setText = (k, v) => setForm({ ...form, text: { ...form.text, [k]: v } });
  /** @param {Status} s @param {boolean} on */
  const setStatus = (s, on) =>
    setForm({ ...form, statuses: on ? [...form.statuses, s] : form.statuses.filter((x) => x !== s) });
  const currency = sites[0]?.currency ?? "EUR";
  const tz = (/** @type {string} */ siteName) => sites.find((s) => s.name === siteName)?.timezone ?? "UTC";

  return html`
    <h1>${t("bookings.title")}</h1>
    <form class="filters" role="search" onSubmit=${(/** @type {Event} */ e) => (e.preventDefault(), setFilters({ ...form, page: 1 }))}>
      <div class="row">
        ${["customerName", "customerEmail", "customerPhone"].map(
          (k) => html`<label>${t(/** @type {any} */ (`bookings.${k}`))}
            <input value=${form.text[k]} onInput=${(/** @type {any} */ e) => setText(k, e.currentTarget.value)} /></label>`,
        )}
        <label>${t("day.site")}
          <select value=${form.text.siteId} onChange=${(/** @type {any} */ e) => setText("siteId", e.currentTarget.value)}>
            <option value="">${t("bookings.any")}</option>
            ${sites.map((s) => html`<option value=${s.id}>${s.name}</option>`)}
          </select></label>
      </div>
      <div class="row">
        <label>${t("bookings.dateFrom")}<input type="date" value=${form.text.dateFrom}
          onChange=${(/** @type {any} */ e) => setText("dateFrom", e.currentTarget.value)} /></label>
        <label>${t("bookings.dateTo")}<input type="date" value=${form.text.dateTo}
          onChange=${(/** @type {any} */ e) => setText("dateTo", e.currentTarget.value)} /></label>
        <label>${t("bookings.minAmount")}<input type="number" min="0" step="0.01" value=${form.text.minAmount}
          onInput=${(/** @type {any} */ e) => setText("minAmount", e.currentTarget.value)} /></label>
        <label>${t("bookings.maxAmount")}<input type="number" min="0" step="0.01" value=${form.text.maxAmount}
          onInput=${(/** @type {any} */ e) => setText("maxAmount", e.currentTarget.value)} /></label>
        <label>${t("bookings.sortBy")}
          <select value=${form.text.sortBy} onChange=${(/** @type {any} */ e) => setText("sortBy", e.currentTarget.value)}>
            ${SORTS.map((s) => html`<option value=${s === "createdAt" ? "" : s}>${t(/** @type {any} */ (`bookings.sort.${s}`))}</option>`)}
          </select></label>
        <label>${t("bookings.order")}
          <select value=${form.text.sortOrder} onChange=${(/** @type {any} */ e) => setText("sortOrder", e.currentTarget.value)}>
            <option value="">${t("bookings.newest")}</option>
            <option value="asc">${t("bookings.oldest")}</option>
          </select></label>
      </div>
      <fieldset class="statuses">
        <legend>${t("day.status")}</legend>
        ${STATUSES.map(
          (s) => html`<label class="check"><input type="checkbox" checked=${form.statuses.includes(s)}
            onChange=${(/** @type {any} */ e) => setStatus(s, e.currentTarget.checked)} />${statusName(s)}</label>`,
        )}
      </fieldset>
      <div class="buttons">
        <button type="submit" class="primary">${t("bookings.search")}</button>
        <button type="button" onClick=${() => {
          const empty = { text: Object.fromEntries(Object.keys(form.text).map((k) => [k, ""])), statuses: [], page: 1 };
          setForm(empty);
          setFilters(empty);
        }}>${t("bookings.clear")}</button>
      </div>
    </form>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    ${result
      ? html`
        <p class="summary" data-testid="summary">${t("bookings.summary", {
          n: result.summary.totalBookings,
          revenue: money(result.summary.totalRevenue, currency),
        })}
          ${Object.entries(result.summary.statusBreakdown).map(
            ([s, n]) => html` <span class=${`status ${s}`}>${statusName(s)}: ${n}</span>`,
          )}</p>
        <table class="bookings list">
          <thead><tr>
            <th scope="col">${t("day.reference")}</th><th scope="col">${t("day.customer")}</th>
            <th scope="col">${t("bookings.when")}</th><th scope="col">${t("day.status")}</th>
            <th scope="col">${t("wizard.price.total")}</th><th scope="col">${t("bookings.paid")}</th>
          </tr></thead>
          <tbody>${result.bookings.map(
            (b) => html`<tr data-booking=${b.bookingReference}>
              <td data-label=${t("day.reference")}><a href=${`/admin/bookings/${b.bookingId}`}
                onClick=${(/** @type {MouseEvent} */ e) => (e.preventDefault(), go(`/admin/bookings/${b.bookingId}`))}>
                <code>${b.bookingReference}</code></a></td>
              <td data-label=${t("day.customer")}>${b.customer.name}<div class="muted">${b.customer.email}</div></td>
              <td data-label=${t("bookings.when")}>${dateTime(b.slot.startTime, tz(b.slot.siteName))}
                <div class="muted">${b.slot.productName} · ${b.slot.siteName}</div></td>
              <td data-label=${t("day.status")}><span class=${`status ${b.status}`}>${statusName(b.status)}</span></td>
              <td data-label=${t("wizard.price.total")}>${money(b.grandTotal, currency)}</td>
              <td data-label=${t("bookings.paid")}>${money(b.paidAmount, currency)}</td>
            </tr>`,
          )}</tbody>
        </table>
        <nav class="pager" aria-label=${t("bookings.pages")}>
          <button type="button" disabled=${filters.page <= 1} onClick=${() => setFilters({ ...filters, page: filters.page - 1 })}>
            ${t("bookings.previous")}</button>
          <span>${t("bookings.page", { page: result.pagination.page, pages: Math.max(1, result.pagination.totalPages) })}</span>
          <button type="button" disabled=${filters.page >= result.pagination.totalPages}
            onClick=${() => setFilters({ ...filters, page: filters.page + 1 })}>${t("bookings.next")}</button>
        </nav>`
      : html`<p aria-busy="true">${t("common.loading")}</p>`}
  `;
}
