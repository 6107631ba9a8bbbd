// Setup: the venue's sites, its products (the activities on sale) and its staff accounts
// with their roles. Each is a list with a form to add one or change one.
import { html, useState, useEffect } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";
import { money } from "../shared/format.js";
import { can } from "./session.js";
import { notify } from "./notices.js";
import { ProductExtras } from "./product-extras.js";
import { TicketTypes, ticketTypesBody } from "./ticket-types.js";

/** @typedef {import("../shared/api.js").Schemas} Schemas */

/**
 * A labelled input bound to one key of a form's values.
 * @param {{label: string, values: Record<string, any>, set: (v: Record<string, any>) => void, name: string,
 *   type?: string, required?: boolean, min?: number, max?: number, step?: string}} props
 */
function Input({ label, values, set, name, type = "text", required = false, min, max, step }) {
  if (type === "checkbox") {
    return html`<label class="check"><input type="checkbox" checked=${!!values[name]}
      onChange=${(/** @type {any} */ e) => set({ ...values, [name]: e.currentTarget.checked })} />${label}</label>`;
  }
  return html`<label>${label}<input type=${type} value=${values[name] ?? ""} required=${required} min=${min} max=${max} step=${step}
    onInput=${(/** @type {any} */ e) => set({ ...values, [name]: e.currentTarget.value })} /></label>`;
}

/**
 * Saves a form, then tells and reloads; errors stay on the form.
 * @param {() => Promise<unknown>} save
 * @param {string} done
 * @param {(e: string) => void} setError
 * @param {() => void} after
 */
async function submit(save, done, setError, after) {
  try {
    await save();
    notify(done);
    setError("");
    after();
  } catch (e) {
    setError(e instanceof Error ? e.message : String(e));
  }
}

/** @param {import("./main.js").PageContext} props */
export function Sites({ api, session }) {
  const [sites, setSites] = useState(/** @type {Schemas["SiteDto"][] | null} */ (null));
  const [editing, setEditing] = useState(/** @type {Record<string, any> | null} */ (null));
  const [error, setError] = useState("");
  const mayWrite = can(session, "admin:write");
  const load = () => ok(api.GET("/api/v1/admin/sites")).then((r) => setSites(r.items)).catch((e) => setError(e.message));
  useEffect(() => void load(), []);

  /** @param {Event} e */
  function save(e) {
    e.preventDefault();
    const v = /** @type {Record<string, any>} */ (editing);
    const body = {
      name: v.name,
      timezone: v.timezone,
      currency: v.currency || undefined,
      address: v.address || null,
      contactEmail: v.contactEmail || null,
      contactPhone: v.contactPhone || null,
      isActive: !!v.isActive,
    };
    submit(
      () =>
        v.id
          ? ok(api.PATCH("/api/v1/admin/sites/{id}", { params: { path: { id: v.id } }, body }))
          : ok(api.POST("/api/v1/admin/sites", { body: { ...body, currency: body.currency ?? "EUR" } })),
      t("setup.saved"),
      setError,
      () => (setEditing(null), load()),
    );
  }

  return html`
    <h1>${t("setup.sites")}</h1>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <table class="bookings list"><thead><tr><th scope="col">${t("setup.name")}</th><th scope="col">${t("setup.timezone")}</th>
      <th scope="col">${t("setup.currency")}</th><th scope="col">${t("setup.active")}</th>${mayWrite ? html`<th scope="col"></th>` : null}</tr></thead>
      <tbody>${(sites ?? []).map(
        (s) => html`<tr data-site=${s.name}><td>${s.name}<div class="muted">${s.address ?? ""}</div></td><td>${s.timezone}</td>
          <td>${s.currency}</td><td>${s.isActive ? t("setup.yes") : t("setup.no")}</td>
          ${mayWrite ? html`<td><button type="button" onClick=${() => setEditing({ ...s })}>${t("setup.edit")}</button></td>` : null}</tr>`,
      )}</tbody></table>
    ${mayWrite && !editing
      ? html`<p><button type="button" class="primary" onClick=${() =>
          setEditing({ name: "", timezone: Intl.DateTimeFormat().resolvedOptions().timeZone, currency: "EUR", isActive: true })}>
          ${t("setup.newSite")}</button></p>`
      : null}
    ${editing
      ? html`<form class="fields panel" onSubmit=${save} aria-label=${t("setup.siteForm")}>
          <${Input} label=${t("setup.name")} name="name" values=${editing} set=${setEditing} required />
          <${Input} label=${t("setup.timezone")} name="timezone" values=${editing} set=${setEditing} required />
          <${Input} label=${t("setup.currency")} name="currency" values=${editing} set=${setEditing} />
          <${Input} label=${t("setup.address")} name="address" values=${editing} set=${setEditing} />
          <${Input} label=${t("setup.contactEmail")} name="contactEmail" type="email" values=${editing} set=${setEditing} />
          <${Input} label=${t("setup.contactPhone")} name="contactPhone" type="tel" values=${editing} set=${setEditing} />
          <${Input} label=${t("setup.onSale")} name="isActive" type="checkbox" values=${editing} set=${setEditing} />
          <div class="buttons"><button type="submit" class="primary">${t("booking.save")}</button>
            <button type="button" onClick=${() => setEditing(null)}>${t("common.cancel")}</button></div>
        </form>`
      : null}
  `;
}

/** @param {import("./main.js").PageContext} props */
export function Products({ api, session }) {
  const [products, setProducts] = useState(/** @type {Schemas["ProductDto"][] | null} */ (null));
  const [sites, setSites] = useState(/** @type {Schemas["SiteDto"][]} */ ([]));
  const [editing, setEditing] = useState(/** @type {Record<string, any> | null} */ (null));
  const [extras, setExtras] = useState(/** @type {Schemas["ProductDto"] | null} */ (null));
  const [error, setError] = useState("");
  const mayWrite = can(session, "admin:write");
  const load = () => ok(api.GET("/api/v1/admin/products")).then((r) => setProducts(r.items)).catch((e) => setError(e.message));
  useEffect(() => {
    load();
    ok(api.GET("/api/v1/admin/sites")).then((r) => setSites(r.items));
  }, []);
  const siteName = (/** @type {string} */ id) => sites.find((s) => s.id === id)?.name ?? "";

  /** @param {Event} e */
  function save(e) {
    e.preventDefault();
    const v = /** @type {Record<string, any>} */ (editing);
    const body = {
      siteId: v.siteId,
      name: v.name,
      description: v.description ?? "",
      durationMins: Number(v.durationMins),
      capacity: Number(v.capacity),
      basePrice: Number(v.basePrice),
      slotIntervalMin: Number(v.slotIntervalMin),
      isActive: !!v.isActive,
      // A product priced per booking costs the same whoever comes: it has no ticket types.
      ...(v.priceType === "per_booking" ? {} : { participantTypes: ticketTypesBody(v.participantTypes ?? []) }),
    };
    submit(
      () =>
        v.id
          ? ok(api.PATCH("/api/v1/admin/products/{id}", { params: { path: { id: v.id } }, body }))
          : ok(api.POST("/api/v1/admin/products", { body })),
      t("setup.saved"),
      setError,
      () => (setEditing(null), load()),
    );
  }

  return html`
    <h1>${t("setup.products")}</h1>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <table class="bookings list"><thead><tr><th scope="col">${t("setup.name")}</th><th scope="col">${t("day.site")}</th>
      <th scope="col">${t("setup.duration")}</th><th scope="col">${t("setup.capacity")}</th><th scope="col">${t("setup.price")}</th>
      <th scope="col">${t("setup.active")}</th><th scope="col"></th></tr></thead>
      <tbody>${(products ?? []).map(
        (p) => html`<tr data-product=${p.name}><td>${p.name}</td><td>${siteName(p.siteId)}</td><td>${p.durationMins} min</td>
          <td>${p.capacity}</td><td>${money(p.basePrice, p.currency)}</td><td>${p.isActive ? t("setup.yes") : t("setup.no")}</td>
          <td class="actions">${mayWrite ? html`<button type="button" onClick=${() => setEditing({ ...p, participantTypes: p.participantTypes.map((x) => ({ ...x })) })}>${t("setup.edit")}</button>` : null}
            <button type="button" onClick=${() => setExtras(p)}>${t("extras.button")}</button></td></tr>`,
      )}</tbody></table>
    ${extras ? html`<${ProductExtras} key=${extras.id} api=${api} product=${extras} mayWrite=${mayWrite} />` : null}
    ${mayWrite && !editing && sites.length > 0
      ? html`<p><button type="button" class="primary" onClick=${() =>
          setEditing({ siteId: sites[0].id, name: "", durationMins: 60, capacity: 10, basePrice: 20, slotIntervalMin: 60, isActive: true })}>
          ${t("setup.newProduct")}</button></p>`
      : null}
    ${editing
      ? html`<form class="fields panel" onSubmit=${save} aria-label=${t("setup.productForm")}>
          <label>${t("day.site")}<select value=${editing.siteId} disabled=${!!editing.id}
            onChange=${(/** @type {any} */ e) => setEditing({ ...editing, siteId: e.currentTarget.value })}>
            ${sites.map((s) => html`<option value=${s.id}>${s.name}</option>`)}</select></label>
          <${Input} label=${t("setup.name")} name="name" values=${editing} set=${setEditing} required />
          <${Input} label=${t("setup.description")} name="description" values=${editing} set=${setEditing} />
          <${Input} label=${t("setup.durationMins")} name="durationMins" type="number" min=${5} max=${1440} values=${editing} set=${setEditing} required />
          <${Input} label=${t("setup.capacity")} name="capacity" type="number" min=${1} values=${editing} set=${setEditing} required />
          <${Input} label=${t("setup.basePrice")} name="basePrice" type="number" min=${0} step="0.01" values=${editing} set=${setEditing} required />
          <${Input} label=${t("setup.interval")} name="slotIntervalMin" type="number" min=${5} values=${editing} set=${setEditing} required />
          ${editing.priceType === "per_booking"
            ? null
            : html`<${TicketTypes} rows=${editing.participantTypes ?? []}
                onChange=${(/** @type {any} */ rows) => setEditing({ ...editing, participantTypes: rows })} />`}
          <${Input} label=${t("setup.onSale")} name="isActive" type="checkbox" values=${editing} set=${setEditing} />
          <div class="buttons"><button type="submit" class="primary">${t("booking.save")}</button>
            <button type="button" onClick=${() => setEditing(null)}>${t("common.cancel")}</button></div>
        </form>`
      : null}
  `;
}

const ROLES = /** @type {const} */ (["owner", "manager", "front_desk", "viewer"]);

/** @param {import("./main.js").PageContext} props */
export function Staff({ api }) {
  const [users, setUsers] = useState(/** @type {Schemas["StaffUser"][] | null} */ (null));
  const [editing, setEditing] = useState(/** @type {Record<string, any> | null} */ (null));
  const [error, setError] = useState("");
  const load = () => ok(api.GET("/api/v1/admin/users")).then((r) => setUsers(r.users)).catch((e) => setError(e.message));
  useEffect(() => void load(), []);

  /** @param {Event} e */
  function save(e) {
    e.preventDefault();
    const v = /** @type {Record<string, any>} */ (editing);
    const roles = [v.role];
    submit(
      () =>
        v.id
          ? ok(api.PATCH("/api/v1/admin/users/{id}", {
              params: { path: { id: v.id } },
              body: { displayName: v.displayName, email: v.email || null, roles, isActive: !!v.isActive, ...(v.password ? { password: v.password } : {}) },
            }))
          : ok(api.POST("/api/v1/admin/users", {
              body: { username: v.username, password: v.password, roles, displayName: v.displayName || undefined, email: v.email || undefined },
            })),
      t("setup.saved"),
      setError,
      () => (setEditing(null), load()),
    );
  }

  return html`
    <h1>${t("setup.staff")}</h1>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <table class="bookings list"><thead><tr><th scope="col">${t("signin.username")}</th><th scope="col">${t("setup.name")}</th>
      <th scope="col">${t("setup.role")}</th><th scope="col">${t("setup.active")}</th><th scope="col"></th></tr></thead>
      <tbody>${(users ?? []).map(
        (u) => html`<tr data-user=${u.username}><td>${u.username}</td><td>${u.displayName}</td>
          <td>${u.roles.map((r) => t(/** @type {any} */ (`setup.role.${r}`))).join(", ")}</td><td>${u.isActive ? t("setup.yes") : t("setup.no")}</td>
          <td><button type="button" onClick=${() => setEditing({ ...u, role: u.roles[0] ?? "viewer", password: "" })}>${t("setup.edit")}</button></td></tr>`,
      )}</tbody></table>
    ${!editing
      ? html`<p><button type="button" class="primary" onClick=${() => setEditing({ username: "", password: "", displayName: "", role: "front_desk", isActive: true })}>
          ${t("setup.newUser")}</button></p>`
      : html`<form class="fields panel" onSubmit=${save} aria-label=${t("setup.userForm")}>
          ${editing.id ? null : html`<${Input} label=${t("signin.username")} name="username" values=${editing} set=${setEditing} required />`}
          <${Input} label=${t("setup.name")} name="displayName" values=${editing} set=${setEditing} />
          <${Input} label=${t("wizard.customer.email")} name="email" type="email" values=${editing} set=${setEditing} />
          <${Input} label=${editing.id ? t("setup.newPassword") : t("signin.password")} name="password" type="password"
            values=${editing} set=${setEditing} required=${!editing.id} />
          <label>${t("setup.role")}<select value=${editing.role} onChange=${(/** @type {any} */ e) => setEditing({ ...editing, role: e.currentTarget.value })}>
            ${ROLES.map((r) => html`<option value=${r}>${t(`setup.role.${r}`)}</option>`)}</select></label>
          ${editing.id ? html`<${Input} label=${t("setup.active")} name="isActive" type="checkbox" values=${editing} set=${setEditing} />` : null}
          <div class="buttons"><button type="submit" class="primary">${t("booking.save")}</button>
            <button type="button" onClick=${() => setEditing(null)}>${t("common.cancel")}</button></div>
        </form>`}
  `;
}
