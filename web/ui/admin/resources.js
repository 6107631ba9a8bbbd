// Rooms, equipment and staff of a site: added, taken out of use, their time off, and what
// each activity's sessions need of them (spec Part B 4.12).
import { html, useState, useEffect } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";
import { can } from "./session.js";
import { notify } from "./notices.js";
import { TimeOff } from "./resource-time-off.js";

/** @typedef {import("../shared/api.js").Schemas} Schemas */

const TYPES = /** @type {const} */ (["ROOM", "EQUIPMENT", "VEHICLE", "STAFF", "OTHER"]);
const MODES = /** @type {const} */ (["EXCLUSIVE", "SHARED", "POOLED"]);

/** @param {Schemas["ResourceDto"]} r how it is used, in words */
function usedBy(r) {
  return t(/** @type {any} */ (`res.mode.${r.sharedMode}`), { n: r.capacity });
}

/** @param {import("./main.js").PageContext} props */
export function Resources({ api, session }) {
  const [sites, setSites] = useState(/** @type {Schemas["SiteDto"][]} */ ([]));
  const [site, setSite] = useState("");
  const [items, setItems] = useState(/** @type {Schemas["ResourceDto"][] | null} */ (null));
  const [form, setForm] = useState(/** @type {Record<string, any> | null} */ (null));
  const [open, setOpen] = useState(/** @type {Schemas["ResourceDto"] | null} */ (null));
  const [error, setError] = useState("");
  const [round, setRound] = useState(0);
  const mayWrite = can(session, "admin:write");

  useEffect(() => {
    ok(api.GET("/api/v1/admin/sites"))
      .then((s) => (setSites(s.items), s.items[0] && setSite(s.items[0].id)))
      .catch((e) => setError(e.message));
  }, []);
  useEffect(() => {
    if (!site) return;
    ok(api.GET("/api/v1/admin/resources", { params: { query: { siteId: site } } }))
      .then((r) => setItems(r.items))
      .catch((e) => setError(e.message));
  }, [site, round]);

  /** @param {Promise<unknown>} call @param {string} done */
  async function run(call, done) {
    try {
      await call;
      notify(done);
      setForm(null);
      setError("");
      setRound(round + 1);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }

  /** @param {Event} e */
  function add(e) {
    e.preventDefault();
    const v = /** @type {Record<string, any>} */ (form);
    run(
      ok(api.POST("/api/v1/admin/resources", {
        body: {
          siteId: site,
          name: v.name.trim(),
          resourceType: v.type,
          sharedMode: v.mode,
          ...(v.mode === "EXCLUSIVE" ? {} : { capacity: Number(v.capacity) }),
        },
      })),
      t("res.added", { name: v.name.trim() }),
    );
  }

  const siteTz = sites.find((s) => s.id === site)?.timezone ?? "UTC";
  return html`
    <h1>${t("nav.resources")}</h1>
    <p class="muted">${t("nav.resources.about")}</p>
    ${sites.length > 1
      ? html`<label>${t("res.site")}<select value=${site} onChange=${(/** @type {any} */ e) => (setOpen(null), setSite(e.currentTarget.value))}>
          ${sites.map((s) => html`<option value=${s.id}>${s.name}</option>`)}</select></label>`
      : null}
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    ${items && items.length === 0 ? html`<p class="muted">${t("res.none")}</p>` : null}
    ${items && items.length > 0
      ? html`<table class="bookings list"><thead><tr><th scope="col">${t("setup.name")}</th><th scope="col">${t("res.type")}</th>
          <th scope="col">${t("res.mode")}</th><th scope="col">${t("res.inUse")}</th><th scope="col">${t("day.actions")}</th></tr></thead>
          <tbody>${items.map(
            (r) => html`<tr data-resource=${r.name}><td>${r.name}</td><td>${t(/** @type {any} */ (`res.type.${r.resourceType}`))}</td>
              <td>${usedBy(r)}</td><td>${r.isActive ? t("setup.yes") : t("setup.no")}</td>
              <td><button type="button" onClick=${() => setOpen(r)}>${t("res.timeOff")}</button>
                ${mayWrite
                  ? html` <button type="button" onClick=${() => run(ok(api.PATCH("/api/v1/admin/resources/{id}",
                      { params: { path: { id: r.id } }, body: { isActive: !r.isActive } })), t("setup.saved"))}>
                      ${r.isActive ? t("res.stop") : t("res.start")}</button>`
                  : null}</td></tr>`,
          )}</tbody></table>`
      : null}
    ${form
      ? html`<form class="fields panel" onSubmit=${add} aria-label=${t("res.form")}>
          <label>${t("setup.name")}<input required maxlength="200" value=${form.name}
            onInput=${(/** @type {any} */ e) => setForm({ ...form, name: e.currentTarget.value })} /></label>
          <label>${t("res.type")}<select value=${form.type} onChange=${(/** @type {any} */ e) => setForm({ ...form, type: e.currentTarget.value })}>
            ${TYPES.map((x) => html`<option value=${x}>${t(`res.type.${x}`)}</option>`)}</select></label>
          <label>${t("res.mode")}<select value=${form.mode} onChange=${(/** @type {any} */ e) => setForm({ ...form, mode: e.currentTarget.value })}>
            ${MODES.map((x) => html`<option value=${x}>${t(`res.modeChoice.${x}`)}</option>`)}</select></label>
          ${form.mode === "EXCLUSIVE"
            ? null
            : html`<label>${t("res.capacity")}<input type="number" min="1" max="10000" required value=${form.capacity}
                onInput=${(/** @type {any} */ e) => setForm({ ...form, capacity: e.currentTarget.value })} /></label>`}
          <div class="buttons"><button type="submit" class="primary">${t("booking.save")}</button>
            <button type="button" onClick=${() => setForm(null)}>${t("common.cancel")}</button></div>
        </form>`
      : mayWrite && site
        ? html`<p><button type="button" class="primary"
            onClick=${() => setForm({ name: "", type: "ROOM", mode: "EXCLUSIVE", capacity: "2" })}>${t("res.new")}</button></p>`
        : null}
    ${open ? html`<${TimeOff} key=${open.id} api=${api} resource=${open} timeZone=${siteTz} mayWrite=${mayWrite} onClose=${() => setOpen(null)} />` : null}
    ${site && items ? html`<${Needs} api=${api} site=${site} resources=${items} mayWrite=${mayWrite} />` : null}
  `;
}

/**
 * Which resources each activity of the site needs for every session.
 * @param {{api: import("../shared/api.js").Client, site: string, resources: Schemas["ResourceDto"][], mayWrite: boolean}} props
 */
function Needs({ api, site, resources, mayWrite }) {
  const [products, setProducts] = useState(/** @type {Schemas["ProductDto"][]} */ ([]));
  const [needs, setNeeds] = useState(/** @type {Record<string, string[]>} */ ({}));
  const [error, setError] = useState("");
  useEffect(() => {
    ok(api.GET("/api/v1/admin/products"))
      .then(async (p) => {
        const here = p.items.filter((x) => x.siteId === site);
        const lists = await Promise.all(
          here.map((x) => ok(api.GET("/api/v1/admin/products/{id}/resources", { params: { path: { id: x.id } } }))),
        );
        setProducts(here);
        setNeeds(Object.fromEntries(here.map((x, i) => [x.id, lists[i].items.map((n) => n.resourceId)])));
      })
      .catch((e) => setError(e.message));
  }, [site]);
  // Staff are given to sessions by skill, not named here.
  const offered = resources.filter((r) => r.resourceType !== "STAFF");
  if (offered.length === 0 || products.length === 0) return null;

  /** @param {Schemas["ProductDto"]} p */
  async function save(p) {
    try {
      const saved = await ok(api.PUT("/api/v1/admin/products/{id}/resources", {
        params: { path: { id: p.id } },
        body: { resourceIds: needs[p.id] ?? [] },
      }));
      const list = saved.items.map((n) => n.name).join(", ") || t("res.needsNothing");
      notify(t("res.needsSaved", { name: p.name, list }));
      setError("");
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }

  return html`<section class="panel" aria-labelledby="needs-title">
    <h2 id="needs-title">${t("res.needs")}</h2>
    <p class="muted">${t("res.needsAbout")}</p>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    ${products.map(
      (p) => html`<fieldset data-needs=${p.name}><legend>${p.name}</legend>
        ${offered.map((r) => {
          const on = (needs[p.id] ?? []).includes(r.id);
          return html`<label class="check"><input type="checkbox" checked=${on} disabled=${!mayWrite}
            onChange=${() => setNeeds({ ...needs, [p.id]: on ? needs[p.id].filter((x) => x !== r.id) : [...(needs[p.id] ?? []), r.id] })} />
            ${r.name}</label>`;
        })}
        ${mayWrite ? html`<button type="button" onClick=${() => save(p)}>${t("booking.save")}</button>` : null}
      </fieldset>`,
    )}
  </section>`;
}
