// The day sheet, the console's first page: a site's day, every session with its seats and
// bookings, and the desk's one-click actions. It reads the sheet again every few seconds,
// so two desks see each other's changes.
import { html, useState, useEffect, useCallback, useRef } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok, answer } from "../shared/api.js";
import { money, time, longDate, addDays } from "../shared/format.js";
import { can } from "./session.js";
import { notify } from "./notices.js";
import { CancelDialog } from "./cancel-dialog.js";

/** @typedef {import("../shared/api.js").Schemas} Schemas */
/** @typedef {Schemas["DaySheetDto"]} Sheet */
/** @typedef {Schemas["DaySheetBookingDto"]} SheetBooking */
/** @typedef {import("./main.js").PageContext} PageContext */

/** How often the sheet is read again while the page is visible. */
const REFRESH_MS = 5000;

/** @param {string} name @param {string | null} value */
function setQuery(name, value) {
  const q = new URLSearchParams(location.search);
  if (value) q.set(name, value);
  else q.delete(name);
  history.replaceState(null, "", `${location.pathname}?${q}`);
}

/** @param {PageContext} props */
export function DaySheet({ api, session }) {
  const query = new URLSearchParams(location.search);
  const [sites, setSites] = useState(/** @type {Schemas["SiteDto"][] | null} */ (null));
  const [siteId, setSiteId] = useState(query.get("site") ?? "");
  const [date, setDate] = useState(query.get("date") ?? "");
  const [sheet, setSheet] = useState(/** @type {Sheet | null} */ (null));
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(/** @type {string | null} */ (null));
  const [cancelling, setCancelling] = useState(/** @type {SheetBooking | null} */ (null));
  const etag = useRef("");

  useEffect(() => {
    ok(api.GET("/api/v1/admin/sites"))
      .then((page) => {
        setSites(page.items);
        if (!siteId && page.items.length > 0) setSiteId(page.items[0].id);
      })
      .catch((e) => setError(e.message));
  }, []);

  const load = useCallback(
    /** @param {boolean} [quiet] a background refresh: keep the sheet shown on failure */
    async (quiet) => {
      if (!siteId) return;
      try {
        const { data, response } = await answer(
          api.GET("/api/v1/admin/day-sheet", { params: { query: { siteId, date: date || undefined } } }),
        );
        const tag = response.headers.get("etag") ?? "";
        if (quiet && tag && tag === etag.current) return;
        etag.current = tag;
        setSheet(data);
        setError("");
        if (!date) setDate(data.date);
      } catch (e) {
        if (!quiet) setError(e instanceof Error ? e.message : String(e));
      }
    },
    [siteId, date],
  );

  useEffect(() => {
    setQuery("site", siteId);
    setQuery("date", date);
    etag.current = "";
    load();
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") load(true);
    }, REFRESH_MS);
    return () => clearInterval(timer);
  }, [load]);

  const mayAct = can(session, "admin:bookings:write");

  /**
   * One of the desk's actions on a booking.
   * @param {SheetBooking} b
   * @param {string} action
   */
  async function act(b, action) {
    if (action === "cancel") {
      setCancelling(b);
      return;
    }
    const id = b.bookingId;
    setBusy(id);
    try {
      let status = "";
      if (action === "mark_paid") {
        status = (await ok(api.POST("/api/v1/bookings/{id}/mark-paid", { params: { path: { id } } }))).status;
      } else if (action === "mark_arrived") {
        const arrived = await ok(api.POST("/api/v1/bookings/{id}/mark-arrived", { params: { path: { id } } }));
        status = arrived.status;
        for (const warning of arrived.warnings ?? []) notify(t("waivers.arrivedMissing", { warning }));
      } else if (action === "mark_completed") {
        status = (
          await ok(
            api.PATCH("/api/v1/admin/bookings/{id}/status", {
              params: { path: { id } },
              body: { status: "completed" },
            }),
          )
        ).status;
      } else if (action === "mark_no_show") {
        status = (
          await ok(
            api.POST("/api/v1/admin/bookings/{bookingId}/no-show", {
              params: { path: { bookingId: id } },
              body: {},
            }),
          )
        ).status;
      }
      notify(t("day.done", { reference: b.bookingReference, status: statusName(status) }));
      await load();
    } catch (e) {
      notify(e instanceof Error ? e.message : String(e), "error");
    } finally {
      setBusy(null);
    }
  }

  if (sites && sites.length === 0) return html`<h1>${t("day.title")}</h1><p>${t("day.noSites")}</p>`;

  return html`
    <div class="day-sheet">
      <div class="toolbar">
        <h1>${t("day.title")}</h1>
        <label>
          ${t("day.site")}
          <select value=${siteId} onChange=${(/** @type {any} */ e) => setSiteId(e.currentTarget.value)}>
            ${(sites ?? []).map((s) => html`<option value=${s.id}>${s.name}</option>`)}
          </select>
        </label>
        <button type="button" aria-label=${t("day.previous")} disabled=${!date}
          onClick=${() => setDate(addDays(date, -1))}>‹</button>
        <label>
          ${t("day.date")}
          <input type="date" value=${date} required
            onChange=${(/** @type {any} */ e) => e.currentTarget.value && setDate(e.currentTarget.value)} />
        </label>
        <button type="button" aria-label=${t("day.next")} disabled=${!date}
          onClick=${() => setDate(addDays(date, 1))}>›</button>
        <button type="button" onClick=${() => setDate("")}>${t("day.today")}</button>
      </div>
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      ${sheet ? html`<${Sheet} sheet=${sheet} mayAct=${mayAct} busy=${busy} act=${act} />` : null}
      ${!sheet && !error ? html`<p aria-busy="true">${t("common.loading")}</p>` : null}
      ${cancelling && sheet
        ? html`<${CancelDialog} api=${api} session=${session} booking=${cancelling}
            currency=${sheet.currency}
            onClose=${(/** @type {boolean} */ done) => {
              setCancelling(null);
              if (done) load();
            }} />`
        : null}
    </div>
  `;
}

/**
 * A room, piece of equipment or staff member a session uses; staff with their skill.
 * @param {Schemas["SheetResourceDto"]} r
 */
function resourceName(r) {
  return r.skillName ? t("day.staffFor", { name: r.name, skill: r.skillName }) : r.name;
}

/** @param {string} status */
export function statusName(status) {
  return t(/** @type {import("../shared/i18n.js").Key} */ (`status.${status}`));
}

/**
 * @param {object} props
 * @param {Sheet} props.sheet
 * @param {boolean} props.mayAct
 * @param {string | null} props.busy
 * @param {(b: SheetBooking, action: string) => void} props.act
 */
function Sheet({ sheet, mayAct, busy, act }) {
  const tz = sheet.timezone;
  const cur = sheet.currency;
  return html`
    <p class="summary">
      <strong>${longDate(sheet.date)}</strong> · ${sheet.siteName} · ${t("day.totals", { ...sheet.totals })}
      <span class="muted"> · ${t("day.updated", { time: time(sheet.generatedAt, tz) })}</span>
    </p>
    ${sheet.products.length === 0 ? html`<p>${t("day.noSlots")}</p>` : null}
    ${sheet.products.map(
      (p) => html`
        <section class="product" aria-labelledby=${`p-${p.productId}`}>
          <h2 id=${`p-${p.productId}`}>${p.productName}</h2>
          ${p.slots.map(
            (s) => html`
              <article class=${s.bookings.length === 0 ? "slot empty" : "slot"} data-slot=${s.slotId}
                aria-labelledby=${`s-${s.slotId}`}>
                <header>
                  <h3 id=${`s-${s.slotId}`}>${time(s.startTime, tz)}–${time(s.endTime, tz)}</h3>
                  <span class=${s.available === 0 ? "seats full" : "seats"}>
                    ${t("day.seats", { booked: s.booked, capacity: s.capacity })}
                    ${s.available === 0 ? ` · ${t("day.full")}` : ""}
                  </span>
                  ${s.orphaned ? html`<span class="badge warn">${t("day.orphaned")}</span>` : null}
                  ${s.bookings.length === 0 ? html`<span class="muted">${t("day.empty")}</span>` : null}
                  ${s.resources.length > 0
                    ? html`<span class="uses">${t("day.resources")}: ${s.resources.map(resourceName).join(", ")}</span>`
                    : null}
                </header>
                ${s.bookings.length === 0
                  ? null
                  : html`<table class="bookings">
                      <thead><tr>
                        <th scope="col">${t("day.reference")}</th>
                        <th scope="col">${t("day.customer")}</th>
                        <th scope="col">${t("day.status")}</th>
                        <th scope="col">${t("day.payment")}</th>
                        ${mayAct ? html`<th scope="col">${t("day.actions")}</th>` : null}
                      </tr></thead>
                      <tbody>
                        ${s.bookings.map((b) => html`<${Row} b=${b} cur=${cur} tz=${tz} mayAct=${mayAct}
                          busy=${busy === b.bookingId} act=${act} />`)}
                      </tbody>
                    </table>`}
              </article>
            `,
          )}
        </section>
      `,
    )}
  `;
}

/**
 * @param {object} props
 * @param {SheetBooking} props.b
 * @param {string} props.cur
 * @param {string} props.tz
 * @param {boolean} props.mayAct
 * @param {boolean} props.busy
 * @param {(b: SheetBooking, action: string) => void} props.act
 */
function Row({ b, cur, tz, mayAct, busy, act }) {
  return html`
    <tr data-booking=${b.bookingReference} class=${`status-${b.status}`}>
      <td data-label=${t("day.reference")}><code>${b.bookingReference}</code></td>
      <td data-label=${t("day.customer")}>
        <div>${b.customer.name}</div>
        <div class="muted">${b.partySize === 1 ? t("day.partyOne") : t("day.party", { n: b.partySize })}
          ${b.customer.phone ? html` · <a href=${`tel:${b.customer.phone}`}>${b.customer.phone}</a>` : null}</div>
        ${b.resources.map(
          (r) => html`<div class="muted">${r.name} ${time(r.startsAt, tz)}–${time(r.endsAt, tz)}</div>`,
        )}
        ${b.adminNotes ? html`<div class="note">${b.adminNotes}</div>` : null}
        ${b.notesCount > 0 ? html`<span class="badge">${t("day.notes", { n: b.notesCount })}</span>` : null}
        ${b.openIssues > 0 ? html`<span class="badge warn">${t("day.issues", { n: b.openIssues })}</span>` : null}
      </td>
      <td data-label=${t("day.status")}><span class=${`status ${b.status}`}>${statusName(b.status)}</span></td>
      <td data-label=${t("day.payment")}>
        ${b.balanceDue > 0
          ? html`<span class="due">${t("day.due", { due: money(b.balanceDue, cur) })}</span>`
          : t("day.paid", { paid: money(b.paidAmount, cur), total: money(b.grandTotal, cur) })}
        ${b.paymentMethod
          ? html`<div class="muted">${t(/** @type {import("../shared/i18n.js").Key} */ (`method.${b.paymentMethod}`))}</div>`
          : null}
      </td>
      ${mayAct
        ? html`<td data-label=${t("day.actions")} class="actions">
            ${b.actions.map(
              (a) => html`<button type="button" disabled=${busy} class=${a === "cancel" ? "danger" : ""}
                onClick=${() => act(b, a)}>
                ${t(/** @type {import("../shared/i18n.js").Key} */ (`action.${a}`))}</button>`,
            )}
          </td>`
        : null}
    </tr>
  `;
}
