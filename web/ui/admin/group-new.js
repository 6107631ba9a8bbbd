// A new booking group at /admin/operations/booking-groups/new (spec Part B 4.3): who the
// group is and how many, its activities at their own prices or one of the packages, each
// activity's session picked from the availability; then every activity is held at once
// (a draft, its activities, one hold) and the group's page takes over: its price, the
// confirmation, the payment.
import { html, useState, useEffect } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";
import { money, time, dateTime } from "../shared/format.js";
import { can } from "./session.js";
import { notify } from "./notices.js";

/** @typedef {import("../shared/api.js").Schemas} Schemas */

/**
 * An activity chosen for the group.
 * @typedef {object} Planned
 * @property {Schemas["ProductDto"]} product
 * @property {Schemas["AvailabilitySlot"]} slot
 */

/** @param {import("./main.js").PageContext} props */
export function NewGroup({ api, session, go }) {
  const [sites, setSites] = useState(/** @type {Schemas["SiteDto"][]} */ ([]));
  const [products, setProducts] = useState(/** @type {Schemas["ProductDto"][]} */ ([]));
  const [packages, setPackages] = useState(/** @type {Schemas["PackageDto"][]} */ ([]));
  const [who, setWho] = useState({ name: "", email: "", phone: "", partySize: 10, notes: "" });
  const [packageId, setPackageId] = useState("");
  const [planned, setPlanned] = useState(/** @type {Planned[]} */ ([]));
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    Promise.all([
      ok(api.GET("/api/v1/admin/sites")),
      ok(api.GET("/api/v1/admin/products")),
      ok(api.GET("/api/v1/admin/packages")),
    ])
      .then(([s, p, k]) => {
        setSites(s.items);
        setProducts(p.items.filter((x) => x.isActive));
        setPackages(k.items.filter((x) => x.isActive));
      })
      .catch((e) => setError(e.message));
  }, []);

  if (!can(session, "admin:bookings:create")) {
    return html`<h1>${t("bookingGroups.newTitle")}</h1><p>${t("error.forbidden")}</p>`;
  }
  const chosenPackage = packages.find((p) => p.id === packageId);
  const offered = chosenPackage ? products.filter((p) => chosenPackage.productIds.includes(p.id)) : products;

  /** Holds the group: a draft, its activities, one hold; the group's page on success. */
  async function holdAll() {
    setBusy(true);
    setError("");
    /** @type {string | null} */
    let draft = null;
    try {
      const g = await ok(
        api.POST("/api/v1/admin/booking-groups", {
          body: {
            groupType: chosenPackage ? "PACKAGE" : "CUSTOM",
            packageId: chosenPackage?.id ?? null,
            partySize: who.partySize,
            customerName: who.name,
            customerEmail: who.email,
            customerPhone: who.phone || null,
            internalNotes: who.notes || null,
          },
        }),
      );
      draft = g.id;
      const path = { id: g.id };
      for (const p of planned) {
        await ok(
          api.POST("/api/v1/admin/booking-groups/{id}/bookings", {
            params: { path },
            body: { productId: p.product.id, siteId: p.product.siteId, slotId: p.slot.slotId },
          }),
        );
      }
      await ok(api.POST("/api/v1/admin/booking-groups/{id}/hold", { params: { path } }));
      notify(t("bookingGroups.held"));
      go(`/admin/booking-groups/${g.id}`);
    } catch (e) {
      setError(/** @type {Error} */ (e).message);
      // Nothing half-made stays behind: the draft goes with the failure.
      if (draft) ok(api.DELETE("/api/v1/admin/booking-groups/{id}", { params: { path: { id: draft } } })).catch(() => {});
    } finally {
      setBusy(false);
    }
  }

  const ready = who.name.trim() !== "" && who.email.includes("@") && planned.length >= 1;
  const tz = (/** @type {string} */ siteId) => sites.find((s) => s.id === siteId)?.timezone ?? "UTC";
  return html`
    <h1>${t("bookingGroups.newTitle")}</h1>
    <p class="muted">${t("bookingGroups.newAbout")}</p>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <section class="panel" aria-labelledby="g-who">
      <h2 id="g-who">${t("bookingGroups.who")}</h2>
      <div class="row">
        <label>${t("wizard.customer.name")}<input value=${who.name} required autocomplete="off"
          onInput=${(/** @type {any} */ e) => setWho({ ...who, name: e.currentTarget.value })} /></label>
        <label>${t("wizard.customer.email")}<input type="email" value=${who.email} required autocomplete="off"
          onInput=${(/** @type {any} */ e) => setWho({ ...who, email: e.currentTarget.value })} /></label>
        <label>${t("wizard.customer.phone")}<input type="tel" value=${who.phone} autocomplete="off"
          onInput=${(/** @type {any} */ e) => setWho({ ...who, phone: e.currentTarget.value })} /></label>
        <label>${t("bookingGroups.party")}<input type="number" min="1" max="500" value=${who.partySize} required
          onChange=${(/** @type {any} */ e) => {
            const n = Number(e.currentTarget.value);
            // Sessions were picked for the old party: they are picked again.
            if (n >= 1 && n <= 500) (setWho({ ...who, partySize: n }), setPlanned([]));
          }} /></label>
      </div>
      <label>${t("bookingGroups.notes")}<input value=${who.notes} maxlength="2000"
        onInput=${(/** @type {any} */ e) => setWho({ ...who, notes: e.currentTarget.value })} /></label>
      ${packages.length > 0
        ? html`<label>${t("bookingGroups.package")}
            <select value=${packageId} onChange=${(/** @type {any} */ e) => (setPackageId(e.currentTarget.value), setPlanned([]))}>
              <option value="">${t("bookingGroups.noPackage")}</option>
              ${packages.map((p) => html`<option value=${p.id}>${p.name}</option>`)}
            </select></label>`
        : null}
      ${chosenPackage ? html`<p class="muted">${t("bookingGroups.packageAbout", { count: chosenPackage.productIds.length })}</p>` : null}
    </section>
    <section class="panel" aria-labelledby="g-what">
      <h2 id="g-what">${t("bookingGroups.activities")}</h2>
      ${planned.length === 0
        ? html`<p class="muted">${t("bookingGroups.noneYet")}</p>`
        : html`<ul class="summary-list">${planned.map(
            (p, i) => html`<li data-planned=${p.product.id}>
              ${p.product.name}, ${dateTime(p.slot.startsAt, tz(p.product.siteId))}${" "}
              <button type="button" class="link" onClick=${() => setPlanned(planned.filter((_, j) => j !== i))}>
                ${t("bookingGroups.remove", { name: p.product.name })}</button></li>`,
          )}</ul>`}
      <${ActivityPicker} api=${api} sites=${sites} products=${offered.filter((p) => !planned.some((x) => x.product.id === p.id) || !chosenPackage)}
        partySize=${who.partySize} add=${(/** @type {Planned} */ p) => setPlanned([...planned, p])} />
    </section>
    <div class="buttons">
      <button type="button" class="primary" disabled=${busy || !ready} onClick=${holdAll}>
        ${t("bookingGroups.holdAll", { count: planned.length })}</button>
    </div>
  `;
}

/**
 * Picks one activity's session for the party.
 * @param {{api: import("../shared/api.js").Client, sites: Schemas["SiteDto"][], products: Schemas["ProductDto"][], partySize: number, add: (p: Planned) => void}} props
 */
function ActivityPicker({ api, sites, products, partySize, add }) {
  const [productId, setProductId] = useState("");
  const product = products.find((p) => p.id === productId) ?? null;
  const site = sites.find((s) => s.id === product?.siteId) ?? sites[0];
  const today = site ? new Intl.DateTimeFormat("en-CA", { timeZone: site.timezone }).format(new Date()) : "";
  const [date, setDate] = useState("");
  const day = date || today;
  const [slots, setSlots] = useState(/** @type {Schemas["AvailabilitySlot"][] | null} */ (null));
  const [slotId, setSlotId] = useState("");
  const [error, setError] = useState("");

  useEffect(() => {
    setSlots(null);
    setSlotId("");
    setError("");
    if (!product || !day) return;
    ok(
      api.GET("/api/v1/availability", {
        params: { query: { site_id: product.siteId, product_id: product.id, date_from: day, party_size: partySize } },
      }),
    )
      .then((a) => setSlots(a.slots))
      .catch((e) => setError(e.message));
  }, [productId, day, partySize]);

  const slot = slots?.find((s) => s.slotId === slotId) ?? null;
  return html`
    <form class="fields" aria-label=${t("bookingGroups.addActivity")} onSubmit=${(/** @type {Event} */ e) => {
      e.preventDefault();
      if (product && slot) (add({ product, slot }), setProductId(""));
    }}>
      <div class="row">
        <label>${t("bookingGroups.activity")}
          <select value=${productId} onChange=${(/** @type {any} */ e) => setProductId(e.currentTarget.value)}>
            <option value="">${t("bookingGroups.chooseActivity")}</option>
            ${products.map((p) => html`<option value=${p.id}>${p.name}</option>`)}
          </select></label>
        <label>${t("wizard.date")}
          <input type="date" value=${day} min=${today}
            onChange=${(/** @type {any} */ e) => /^\d{4}-\d{2}-\d{2}$/.test(e.currentTarget.value) && setDate(e.currentTarget.value)} /></label>
      </div>
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      ${product && !slots && !error ? html`<p aria-busy="true">${t("common.loading")}</p>` : null}
      ${product && slots && slots.length === 0 ? html`<p>${t("wizard.noSlots")}</p>` : null}
      ${product && slots && slots.length > 0
        ? html`<fieldset class="choices slots">
            <legend>${t("wizard.times")}</legend>
            ${slots.map(
              (s) => html`<label class="choice">
                <input type="radio" name="group-slot" value=${s.slotId} checked=${slotId === s.slotId}
                  onChange=${() => setSlotId(s.slotId)} />
                <span><strong>${time(s.startsAt, site?.timezone ?? "UTC")}</strong><br />
                  <span class="muted">${t("wizard.slotFacts", {
                    free: s.availableCapacity,
                    price: money(s.pricingPreview.grandTotal, s.pricingPreview.currency),
                  })}</span></span>
              </label>`,
            )}
          </fieldset>`
        : null}
      <button type="submit" disabled=${!slot}>${t("bookingGroups.addIt")}</button>
    </form>
  `;
}
