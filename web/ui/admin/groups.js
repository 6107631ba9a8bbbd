// Booking groups in the console (spec Part B 4.3): the list with its status and email
// filters, and a group's page: its activities, its price split over them, and what its
// status allows (hold a draft, apply a promotion code or a voucher to a hold, confirm a
// hold by invoice or free of charge with an optional total of staff's own, record money
// taken for the invoice, cancel the group).
import { html, useState, useEffect } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";
import { money, dateTime } from "../shared/format.js";
import { can } from "./session.js";
import { notify } from "./notices.js";
import { statusName } from "./day-sheet.js";

/** @typedef {import("../shared/api.js").Schemas} Schemas */
/** @typedef {Schemas["BookingGroupDto"]} Group */

const STATUSES = ["DRAFT", "HOLD", "CONFIRMED", "PARTIALLY_CANCELED", "CANCELED", "COMPLETED", "EXPIRED"];

/** A group status in words. @param {string} s */
export const groupStatusName = (s) => t(/** @type {any} */ (`bookingGroups.status.${s}`));

/** The group's total: its pricing, else the sum of its bookings. @param {Group} g */
const totalOf = (g) => g.pricing?.grandTotal ?? g.bookings.reduce((sum, b) => sum + b.total, 0);

/** @param {import("./main.js").PageContext} props */
export function Groups({ api, go }) {
  const q = new URLSearchParams(location.search);
  const [filters, setFilters] = useState({ status: q.get("status") ?? "", customerEmail: q.get("customerEmail") ?? "" });
  const [form, setForm] = useState(filters);
  const [list, setList] = useState(/** @type {Schemas["BookingGroupList"] | null} */ (null));
  const [error, setError] = useState("");

  useEffect(() => {
    const q = new URLSearchParams();
    if (filters.status) q.set("status", filters.status);
    if (filters.customerEmail) q.set("customerEmail", filters.customerEmail);
    history.replaceState(null, "", `${location.pathname}${q.size ? `?${q}` : ""}`);
    setError("");
    ok(
      api.GET("/api/v1/admin/booking-groups", {
        params: { query: { status: filters.status || undefined, customerEmail: filters.customerEmail || undefined } },
      }),
    )
      .then(setList)
      .catch((e) => setError(e.message));
  }, [filters]);

  return html`
    <h1>${t("bookingGroups.title")}</h1>
    <p><a class="button primary" href="/admin/operations/booking-groups/new"
      onClick=${(/** @type {MouseEvent} */ e) => (e.preventDefault(), go("/admin/operations/booking-groups/new"))}>${t("bookingGroups.new")}</a></p>
    <form class="filters" role="search" onSubmit=${(/** @type {Event} */ e) => (e.preventDefault(), setFilters(form))}>
      <div class="row">
        <label>${t("day.status")}
          <select value=${form.status} onChange=${(/** @type {any} */ e) => setForm({ ...form, status: e.currentTarget.value })}>
            <option value="">${t("bookings.any")}</option>
            ${STATUSES.map((s) => html`<option value=${s}>${groupStatusName(s)}</option>`)}
          </select></label>
        <label>${t("bookings.customerEmail")}
          <input value=${form.customerEmail} onInput=${(/** @type {any} */ e) => setForm({ ...form, customerEmail: e.currentTarget.value })} /></label>
        <button type="submit">${t("bookings.search")}</button>
      </div>
    </form>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    ${!list && !error ? html`<p aria-busy="true">${t("common.loading")}</p>` : null}
    ${list && list.groups.length === 0 ? html`<p>${t("bookingGroups.none")}</p>` : null}
    ${list && list.groups.length > 0
      ? html`<p data-testid="groups-summary">${t("bookingGroups.count", { count: list.total })}</p>
        <table class="list">
          <thead><tr>
            <th scope="col">${t("bookingGroups.reference")}</th><th scope="col">${t("bookingGroups.customer")}</th>
            <th scope="col">${t("bookingGroups.party")}</th><th scope="col">${t("bookingGroups.activities")}</th>
            <th scope="col">${t("day.status")}</th><th scope="col">${t("bookingGroups.total")}</th>
          </tr></thead>
          <tbody>${list.groups.map(
            (g) => html`<tr data-group=${g.id}>
              <td><a href=${`/admin/booking-groups/${g.id}`}
                onClick=${(/** @type {MouseEvent} */ e) => (e.preventDefault(), go(`/admin/booking-groups/${g.id}`))}>${g.reference}</a></td>
              <td>${g.customerName}<br /><span class="muted">${g.customerEmail}</span></td>
              <td>${g.partySize}</td>
              <td>${g.status === "DRAFT" ? g.activities.length : g.bookings.length}</td>
              <td>${groupStatusName(g.status)}</td>
              <td>${money(totalOf(g), g.pricing?.currency ?? "EUR")}</td>
            </tr>`,
          )}</tbody>
        </table>`
      : null}
  `;
}

/** @param {import("./main.js").PageContext & {id: string}} props */
export function Group({ api, session, id, go }) {
  const [g, setG] = useState(/** @type {Group | null} */ (null));
  const [names, setNames] = useState(/** @type {Record<string, string>} */ ({}));
  const [timezone, setTimezone] = useState("UTC");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const path = { id };

  async function load() {
    try {
      const group = await ok(api.GET("/api/v1/admin/booking-groups/{id}", { params: { path } }));
      if (group.status === "DRAFT" && group.activities.length > 0 && !group.pricing) {
        const p = await ok(api.POST("/api/v1/admin/booking-groups/{id}/calculate-pricing", { params: { path } }));
        group.pricing = p;
      }
      setG(group);
    } catch (e) {
      setError(/** @type {Error} */ (e).message);
    }
  }
  useEffect(() => {
    load();
    Promise.all([ok(api.GET("/api/v1/admin/products")), ok(api.GET("/api/v1/admin/sites"))])
      .then(([products, sites]) => {
        setNames(Object.fromEntries(products.items.map((p) => [p.id, p.name])));
        setTimezone(sites.items[0]?.timezone ?? "UTC");
      })
      .catch(() => {});
  }, [id]);

  /** Runs one action, then shows the group as it is now; whether it worked. @param {() => Promise<unknown>} action @param {string} done */
  async function act(action, done) {
    setBusy(true);
    setError("");
    try {
      await action();
      notify(done);
      await load();
      return true;
    } catch (e) {
      setError(/** @type {Error} */ (e).message);
      return false;
    } finally {
      setBusy(false);
    }
  }

  if (!g) return html`<h1>${t("bookingGroups.title")}</h1>${error ? html`<p class="error" role="alert">${error}</p>` : html`<p aria-busy="true">${t("common.loading")}</p>`}`;
  const currency = g.pricing?.currency ?? "EUR";
  const rows = g.status === "DRAFT"
    ? g.activities.map((a) => ({ id: a.bookingId, productId: a.productId, startsAt: "", status: "", total: null, reference: "" }))
    : g.bookings.map((b) => ({ id: b.bookingId, productId: b.productId, startsAt: b.startsAt, status: b.status, total: b.total, reference: b.reference }));
  const allocation = (/** @type {string} */ bookingId) => g.pricing?.allocations.find((a) => a.bookingId === bookingId);
  const live = ["HOLD", "CONFIRMED", "PARTIALLY_CANCELED"].includes(g.status);
  // A cancelled booking or a lapsed hold is no part of what the group costs now.
  const gone = (/** @type {string} */ status) => status === "canceled" || status === "expired";
  return html`
    <h1>${t("bookingGroups.heading", { reference: g.reference })}</h1>
    <p><a href="/admin/booking-groups" onClick=${(/** @type {MouseEvent} */ e) => (e.preventDefault(), go("/admin/booking-groups"))}>${t("bookingGroups.back")}</a></p>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <dl class="figures">
      <dt>${t("day.status")}</dt><dd data-testid="group-status">${groupStatusName(g.status)}</dd>
      <dt>${t("bookingGroups.customer")}</dt><dd>${g.customerName}, ${g.customerEmail}${g.customerPhone ? `, ${g.customerPhone}` : ""}</dd>
      <dt>${t("bookingGroups.party")}</dt><dd>${g.partySize}</dd>
      ${g.holdExpiresAt ? html`<dt>${t("bookingGroups.heldUntil")}</dt><dd>${dateTime(g.holdExpiresAt, timezone)}</dd>` : null}
      ${g.paymentMethod ? html`<dt>${t("bookingGroups.paidBy")}</dt><dd>${t(/** @type {any} */ (`bookingGroups.method.${g.paymentMethod}`))}</dd>` : null}
      ${g.customTotal != null ? html`<dt>${t("bookingGroups.customTotal")}</dt><dd>${money(g.customTotal, currency)} (${g.customPricingReason})</dd>` : null}
    </dl>
    <h2>${t("bookingGroups.activities")}</h2>
    <table class="list">
      <thead><tr>
        <th scope="col">${t("bookingGroups.activity")}</th><th scope="col">${t("bookingGroups.when")}</th>
        <th scope="col">${t("day.status")}</th><th scope="col">${t("bookingGroups.share")}</th>
      </tr></thead>
      <tbody>${rows.map(
        (r) => html`<tr data-booking=${r.id}>
          <td>${names[r.productId] ?? r.productId}${r.reference
            ? html`<br /><a class="muted" href=${`/admin/bookings/${r.id}`}
                onClick=${(/** @type {MouseEvent} */ e) => (e.preventDefault(), go(`/admin/bookings/${r.id}`))}>${r.reference}</a>`
            : null}</td>
          <td>${r.startsAt ? dateTime(r.startsAt, timezone) : ""}</td>
          <td>${r.status ? statusName(/** @type {any} */ (r.status)) : groupStatusName("DRAFT")}</td>
          <td>${gone(r.status) ? "—" : money(allocation(r.id)?.allocatedTotal ?? r.total ?? 0, currency)}</td>
        </tr>`,
      )}</tbody>
    </table>
    ${g.pricing
      ? html`<p data-testid="group-total">${t("bookingGroups.priced", {
          total: money(g.pricing.grandTotal, currency),
          tax: money(g.pricing.taxTotal, currency),
          method: t(/** @type {any} */ (`bookingGroups.pricing.${g.pricing.pricingMethod}`)),
        })}</p>`
      : null}
    ${g.status === "DRAFT"
      ? html`<div class="buttons">
          <button type="button" class="primary" disabled=${busy || g.activities.length === 0}
            onClick=${() => act(() => ok(api.POST("/api/v1/admin/booking-groups/{id}/hold", { params: { path } })), t("bookingGroups.held"))}>${t("bookingGroups.hold")}</button>
          <button type="button" disabled=${busy}
            onClick=${() => act(() => ok(api.DELETE("/api/v1/admin/booking-groups/{id}", { params: { path } })).then(() => go("/admin/booking-groups")), t("bookingGroups.deleted"))}>${t("bookingGroups.delete")}</button>
        </div>`
      : null}
    ${g.pricing && (g.pricing.promotions.length > 0 || g.pricing.vouchers.length > 0)
      ? html`<ul data-testid="group-codes">
          ${g.pricing.promotions.map((p) => html`<li>${t("bookingGroups.codeLine", { code: p.code, amount: money(p.amount, currency) })}
            ${g.status === "HOLD"
              ? html` <button type="button" class="link" disabled=${busy}
                  onClick=${() => act(() => ok(api.DELETE("/api/v1/booking-groups/{id}/promotions/{code}", { params: { path: { id, code: p.code } } })), t("bookingGroups.codeRemoved"))}
                  >${t("bookingGroups.removeCode", { code: p.code })}</button>`
              : null}</li>`)}
          ${g.pricing.vouchers.map((v) => html`<li>${t("bookingGroups.voucherLine", { code: v.code, amount: money(v.amount, currency) })}</li>`)}
        </ul>`
      : null}
    ${g.status === "HOLD" ? html`<${CodesForm} api=${api} id=${id} busy=${busy} act=${act} />` : null}
    ${g.status === "HOLD" ? html`<${ConfirmForm} api=${api} session=${session} id=${id} currency=${currency} busy=${busy} act=${act} />` : null}
    ${(g.status === "CONFIRMED" || g.status === "PARTIALLY_CANCELED") && g.paymentMethod === "INVOICE"
      ? html`<${PaidForm} api=${api} id=${id} busy=${busy} act=${act} />`
      : null}
    ${live ? html`<${CancelForm} api=${api} id=${id} busy=${busy} act=${act} />` : null}
  `;
}

/**
 * What a form of the group's page gets.
 * @typedef {object} FormProps
 * @property {import("../shared/api.js").Client} api
 * @property {string} id
 * @property {boolean} busy
 * @property {(action: () => Promise<unknown>, done: string) => Promise<boolean>} act
 */

/** Confirming a held group by invoice or free of charge. @param {FormProps & {session: import("./session.js").Session, currency: string}} props */
function ConfirmForm({ api, session, id, currency, busy, act }) {
  const [method, setMethod] = useState("INVOICE");
  const [custom, setCustom] = useState("");
  const [reason, setReason] = useState("");
  const methods = can(session, "admin:bookings:create:comp") ? ["INVOICE", "COMP"] : ["INVOICE"];
  const mayPrice = can(session, "admin:bookings:create:custom_pricing");
  return html`
    <form class="fields panel" onSubmit=${(/** @type {Event} */ e) => {
      e.preventDefault();
      act(
        () =>
          ok(
            api.POST("/api/v1/admin/booking-groups/{id}/confirm", {
              params: { path: { id } },
              body: {
                paymentMethod: method,
                customTotal: custom === "" ? null : Number(custom),
                customPricingReason: custom === "" ? null : reason,
              },
            }),
          ),
        t("bookingGroups.confirmed"),
      );
    }}>
      <h2>${t("bookingGroups.confirm")}</h2>
      <fieldset class="choices">
        <legend>${t("bookingGroups.howPaid")}</legend>
        ${methods.map(
          (m) => html`<label class="choice"><input type="radio" name="group-method" value=${m} checked=${method === m}
            onChange=${() => setMethod(m)} /><span>${t(/** @type {any} */ (`bookingGroups.method.${m}`))}</span></label>`,
        )}
      </fieldset>
      ${mayPrice
        ? html`<div class="row">
            <label>${t("bookingGroups.customTotalIn", { currency })}
              <input type="number" min="0" step="0.01" value=${custom} onInput=${(/** @type {any} */ e) => setCustom(e.currentTarget.value)} /></label>
            <label>${t("bookingGroups.customReason")}
              <input value=${reason} maxlength="500" required=${custom !== ""} onInput=${(/** @type {any} */ e) => setReason(e.currentTarget.value)} /></label>
          </div>`
        : null}
      <button type="submit" class="primary" disabled=${busy}>${t("bookingGroups.confirmIt")}</button>
    </form>
  `;
}

/** A promotion code or a voucher on a held group's total. @param {FormProps} props */
function CodesForm({ api, id, busy, act }) {
  const [code, setCode] = useState("");
  const [kind, setKind] = useState("promotion");
  return html`
    <form class="fields panel" aria-label=${t("bookingGroups.codes")} onSubmit=${(/** @type {Event} */ e) => {
      e.preventDefault();
      const path = { id };
      act(
        () =>
          kind === "promotion"
            ? ok(api.POST("/api/v1/booking-groups/{id}/apply-promo", { params: { path }, body: { promotion_code: code } }))
            : ok(api.POST("/api/v1/booking-groups/{id}/apply-voucher", { params: { path }, body: { voucher_code: code } })),
        t(kind === "promotion" ? "bookingGroups.codeApplied" : "bookingGroups.voucherApplied"),
      ).then((worked) => worked && setCode(""));
    }}>
      <h2>${t("bookingGroups.codes")}</h2>
      <p class="muted">${t("bookingGroups.codesAbout")}</p>
      <div class="row">
        <label>${t("bookingGroups.codeKind")}
          <select value=${kind} onChange=${(/** @type {any} */ e) => setKind(e.currentTarget.value)}>
            <option value="promotion">${t("bookingGroups.kind.promotion")}</option>
            <option value="voucher">${t("bookingGroups.kind.voucher")}</option>
          </select></label>
        <label>${t("bookingGroups.code")}
          <input value=${code} required maxlength="50" autocomplete="off" onInput=${(/** @type {any} */ e) => setCode(e.currentTarget.value)} /></label>
      </div>
      <button type="submit" disabled=${busy}>${t("bookingGroups.applyCode")}</button>
    </form>
  `;
}

/** Money taken for an invoiced group. @param {FormProps} props */
function PaidForm({ api, id, busy, act }) {
  const [amount, setAmount] = useState("");
  const [method, setMethod] = useState("bank_transfer");
  return html`
    <form class="fields panel" onSubmit=${(/** @type {Event} */ e) => {
      e.preventDefault();
      act(
        () =>
          ok(
            api.POST("/api/v1/admin/booking-groups/{id}/mark-paid", {
              params: { path: { id } },
              body: { amount: amount === "" ? null : Number(amount), paymentMethod: method },
            }),
          ),
        t("bookingGroups.paidRecorded"),
      );
    }}>
      <h2>${t("bookingGroups.recordPayment")}</h2>
      <div class="row">
        <label>${t("bookingGroups.amount")}
          <input type="number" min="0.01" step="0.01" value=${amount} placeholder=${t("bookingGroups.everything")}
            onInput=${(/** @type {any} */ e) => setAmount(e.currentTarget.value)} /></label>
        <label>${t("bookingGroups.paidWith")}
          <select value=${method} onChange=${(/** @type {any} */ e) => setMethod(e.currentTarget.value)}>
            ${["bank_transfer", "cash", "card_terminal"].map((m) => html`<option value=${m}>${t(/** @type {any} */ (`bookingGroups.paidWith.${m}`))}</option>`)}
          </select></label>
      </div>
      <button type="submit" disabled=${busy}>${t("bookingGroups.recordIt")}</button>
    </form>
  `;
}

/** Cancelling every booking of the group that is not over. @param {FormProps} props */
function CancelForm({ api, id, busy, act }) {
  const [reason, setReason] = useState("");
  return html`
    <form class="fields panel" onSubmit=${(/** @type {Event} */ e) => {
      e.preventDefault();
      act(() => ok(api.POST("/api/v1/admin/booking-groups/{id}/cancel", { params: { path: { id } }, body: { reason } })), t("bookingGroups.cancelled"));
    }}>
      <h2>${t("bookingGroups.cancel")}</h2>
      <p class="muted">${t("bookingGroups.cancelAbout")}</p>
      <label>${t("bookingGroups.cancelReason")}
        <input value=${reason} required maxlength="500" onInput=${(/** @type {any} */ e) => setReason(e.currentTarget.value)} /></label>
      <button type="submit" class="danger" disabled=${busy}>${t("bookingGroups.cancelIt")}</button>
    </form>
  `;
}
