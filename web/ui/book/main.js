// The booking widget at /book/{tenantId} (embeddable with an iframe): the customer picks
// an activity, a day, the party and a time with its price, gives their details (the
// places are then held, with the time left shown), adds a room or equipment the activity
// offers around it, applies a code, voucher or gift card,
// pays by card or on arrival where the venue allows, and gets the reference with a link
// to see, cancel or reschedule the booking (/book/{tenantId}/manage). A package books
// several activities together as one group, paid once (package.js). An activity that
// needs waivers asks who is coming and links to the signing page
// (/book/{tenantId}/waivers/{bookingId}, waivers.js).
import { html, render, useState, useEffect, useMemo } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { apiClient, ok } from "../shared/api.js";
import { ChooseActivity, ChooseTime, Details } from "./choose.js";
import { Checkout, Booked } from "./checkout.js";
import { Manage } from "./manage.js";
import { PackageList, PackageTimes, GroupCheckout, GroupBooked } from "./package.js";
import { Waivers } from "./waivers.js";

/** @typedef {import("../shared/api.js").Schemas} Schemas */
/** @typedef {import("../shared/api.js").Client} Client */

/**
 * What the customer has chosen so far.
 * @typedef {object} Choice
 * @property {Schemas["SiteConfig"]} site
 * @property {Schemas["PublicProduct"] | null} product
 * @property {string} date
 * @property {number} partySize
 * @property {import("../shared/type-counts.js").TypeCounts} [types] places by participant type
 * @property {Schemas["AvailabilitySlot"] | null} slot
 * @property {{name: string, email: string, phone: string}} customer
 * @property {Schemas["BookingResponse"] | null} hold the hold, once made (has bookingToken)
 * @property {Schemas["PricedBookingDto"] | null} priced its price after codes
 * @property {Schemas["BookingResponse"] | null} booked
 * @property {Schemas["PackageDto"] | null} [package] a package being booked as a group
 * @property {Schemas["BookingGroupDto"] | null} [group] its group, once held (has groupToken)
 * @property {boolean} [groupBooked]
 */

/** The tenant id in the address: /book/{tenantId}/… */
export const tenant = decodeURIComponent(location.pathname.split("/")[2] ?? "");

/**
 * The link that shows a booking to whoever holds its token (kept in the fragment, which
 * browsers never send to a server).
 * @param {string} id
 * @param {string} token
 */
export function manageLink(id, token) {
  return `${location.origin}/book/${encodeURIComponent(tenant)}/manage?booking=${id}#token=${token}`;
}

/**
 * The signing page of a booking's waivers.
 * @param {string} id
 */
export function waiverLink(id) {
  return `${location.origin}/book/${encodeURIComponent(tenant)}/waivers/${id}`;
}

function Widget() {
  const api = useMemo(() => apiClient({ tenant: () => tenant }), []);
  const manage = location.pathname.replace(/\/+$/, "").endsWith("/manage");
  // The signing page: /book/{tenantId}/waivers/{bookingId}.
  const waiverBooking = /\/waivers\/([^/]+)\/?$/.exec(location.pathname)?.[1] ?? null;
  const [sites, setSites] = useState(/** @type {Schemas["PublicSite"][] | null} */ (null));
  const [choice, setChoice] = useState(/** @type {Choice | null} */ (null));
  const [error, setError] = useState("");

  useEffect(() => {
    if (manage || waiverBooking) return;
    ok(api.GET("/api/v1/availability/sites"))
      .then((r) => {
        setSites(r.sites);
        const wanted = new URLSearchParams(location.search).get("site");
        const only = r.sites.length === 1 ? r.sites[0].siteId : null;
        const site = wanted ?? only;
        if (site) pickSite(site);
      })
      .catch((e) => setError(e.status === 404 ? t("book.noVenue") : e.message));
  }, []);

  /** @param {string} siteId */
  async function pickSite(siteId) {
    try {
      const site = await ok(api.GET("/api/v1/availability/sites/{siteId}/config", { params: { path: { siteId } } }));
      setChoice({
        site,
        product: null,
        date: new Intl.DateTimeFormat("en-CA", { timeZone: site.timezone }).format(new Date()),
        partySize: 2,
        types: {},
        slot: null,
        customer: { name: "", email: "", phone: "" },
        hold: null,
        priced: null,
        booked: null,
      });
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }

  /** @param {Partial<Choice>} change */
  const update = (change) => setChoice((c) => (c ? { ...c, ...change } : c));

  let body;
  if (manage) body = html`<${Manage} api=${api} />`;
  else if (waiverBooking) body = html`<${Waivers} api=${api} bookingId=${decodeURIComponent(waiverBooking)} />`;
  else if (error) body = html`<p class="error" role="alert">${error}</p>`;
  else if (!choice && sites && sites.length > 1) {
    body = html`<h2>${t("book.chooseSite")}</h2>
      <ul class="cards">${sites.map(
        (s) => html`<li><button type="button" class="card" onClick=${() => pickSite(s.siteId)}>
          <strong>${s.name}</strong>${s.address ? html`<span class="muted">${s.address}</span>` : null}</button></li>`,
      )}</ul>`;
  } else if (!choice) body = html`<p aria-busy="true">${t("common.loading")}</p>`;
  else if (choice.group && choice.groupBooked) body = html`<${GroupBooked} choice=${choice} />`;
  else if (choice.group) body = html`<${GroupCheckout} api=${api} choice=${choice} update=${update} />`;
  else if (choice.package) body = html`<${PackageTimes} api=${api} choice=${choice} update=${update} />`;
  else if (choice.booked) body = html`<${Booked} choice=${choice} />`;
  else if (choice.hold) body = html`<${Checkout} api=${api} choice=${choice} update=${update} />`;
  else if (choice.slot) body = html`<${Details} api=${api} choice=${choice} update=${update} />`;
  else if (choice.product) body = html`<${ChooseTime} api=${api} choice=${choice} update=${update} />`;
  else body = html`<${ChooseActivity} choice=${choice} update=${update} />
    <${PackageList} api=${api} choice=${choice} update=${update} />`;

  return html`<main class="widget">
    <header class="widget-head"><h1>${choice?.site.name ?? t("book.title")}</h1></header>
    ${body}
  </main>`;
}

const root = document.getElementById("app");
if (root) render(html`<${Widget} />`, root);
