// Staff skills (spec Part A 4.11): skills added, given to staff members at a level until a
// certificate runs out, taken away, the certificates running out soon, and what each
// activity asks of its staff.
import { html, useState, useEffect } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";
import { dateTime, instantAt } from "../shared/format.js";
import { can } from "./session.js";
import { notify } from "./notices.js";

/** @typedef {import("../shared/api.js").Schemas} Schemas */

/** @param {import("./main.js").PageContext} props */
export function Skills({ api, session }) {
  const [skills, setSkills] = useState(/** @type {Schemas["SkillDto"][] | null} */ (null));
  const [staff, setStaff] = useState(/** @type {Schemas["ResourceDto"][]} */ ([]));
  const [held, setHeld] = useState(/** @type {Record<string, Schemas["HeldSkillDto"][]>} */ ({}));
  const [expiring, setExpiring] = useState(/** @type {Schemas["HeldSkillDto"][]} */ ([]));
  const [sites, setSites] = useState(/** @type {Schemas["SiteDto"][]} */ ([]));
  const [form, setForm] = useState(/** @type {Record<string, any> | null} */ (null));
  const [grant, setGrant] = useState(/** @type {Record<string, any> | null} */ (null));
  const [error, setError] = useState("");
  const [round, setRound] = useState(0);
  const mayWrite = can(session, "admin:write");

  useEffect(() => {
    Promise.all([
      ok(api.GET("/api/v1/admin/skills")),
      ok(api.GET("/api/v1/admin/resources", { params: { query: { resourceType: "STAFF" } } })),
      ok(api.GET("/api/v1/admin/skills/expiring", { params: { query: { withinDays: 60 } } })),
      ok(api.GET("/api/v1/admin/sites")),
    ])
      .then(async ([k, r, x, s]) => {
        const lists = await Promise.all(
          r.items.map((p) => ok(api.GET("/api/v1/admin/skills/resources/{resourceId}", { params: { path: { resourceId: p.id } } }))),
        );
        setSkills(k.items);
        setStaff(r.items);
        setHeld(Object.fromEntries(r.items.map((p, i) => [p.id, lists[i].items])));
        setExpiring(x.items);
        setSites(s.items);
      })
      .catch((e) => setError(e.message));
  }, [round]);

  /** The time zone of a staff member's site (the first site's for none). */
  const tzOf = (/** @type {string} */ resourceId) => {
    const site = staff.find((p) => p.id === resourceId)?.siteId;
    return (sites.find((s) => s.id === site) ?? sites[0])?.timezone ?? "UTC";
  };

  /** @param {Promise<unknown>} call @param {string} done */
  async function run(call, done) {
    try {
      await call;
      notify(done);
      setForm(null);
      setGrant(null);
      setError("");
      setRound(round + 1);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }

  /** @param {Event} e */
  function give(e) {
    e.preventDefault();
    const v = /** @type {Record<string, any>} */ (grant);
    const skill = skills?.find((k) => k.id === v.skill)?.name ?? "";
    const name = staff.find((p) => p.id === v.who)?.name ?? "";
    run(
      ok(api.POST("/api/v1/admin/skills/assign", {
        body: {
          skillId: v.skill,
          resourceId: v.who,
          level: Number(v.level),
          ...(v.expires ? { expiresAt: instantAt(`${v.expires}T23:59`, tzOf(v.who)) } : {}),
        },
      })),
      t("skills.given", { skill, name }),
    );
  }

  /** @param {Schemas["HeldSkillDto"]} h */
  const validity = (h) =>
    !h.isValid ? t("skills.expired") : h.expiresAt ? t("skills.until", { date: dateTime(h.expiresAt, tzOf(h.resourceId)) }) : "";

  return html`
    <h1>${t("nav.skills")}</h1>
    <p class="muted">${t("nav.skills.about")}</p>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    ${skills && skills.length === 0 ? html`<p class="muted">${t("skills.none")}</p>` : null}
    ${skills && skills.length > 0
      ? html`<table class="bookings list"><thead><tr><th scope="col">${t("setup.name")}</th><th scope="col">${t("setup.description")}</th>
          <th scope="col">${t("skills.holders")}</th></tr></thead>
          <tbody>${skills.map((k) => html`<tr data-skill=${k.name}><td>${k.name}</td><td>${k.description}</td><td>${k.holders}</td></tr>`)}</tbody></table>`
      : null}
    ${form
      ? html`<form class="fields panel" aria-label=${t("skills.form")} onSubmit=${(/** @type {Event} */ e) => (e.preventDefault(),
          run(ok(api.POST("/api/v1/admin/skills", { body: { name: form.name.trim(), description: form.description.trim() } })),
            t("skills.added", { name: form.name.trim() })))}>
          <label>${t("setup.name")}<input required maxlength="200" value=${form.name}
            onInput=${(/** @type {any} */ e) => setForm({ ...form, name: e.currentTarget.value })} /></label>
          <label>${t("setup.description")}<input maxlength="1000" value=${form.description}
            onInput=${(/** @type {any} */ e) => setForm({ ...form, description: e.currentTarget.value })} /></label>
          <div class="buttons"><button type="submit" class="primary">${t("booking.save")}</button>
            <button type="button" onClick=${() => setForm(null)}>${t("common.cancel")}</button></div>
        </form>`
      : mayWrite
        ? html`<p class="buttons"><button type="button" class="primary" onClick=${() => setForm({ name: "", description: "" })}>${t("skills.new")}</button>
            ${skills?.length && staff.length
              ? html`<button type="button" onClick=${() => setGrant({ skill: skills[0].id, who: staff[0].id, level: "1", expires: "" })}>${t("skills.give")}</button>`
              : null}</p>`
        : null}
    ${skills?.length && staff.length === 0 ? html`<p class="muted">${t("skills.noStaff")}</p>` : null}
    ${grant
      ? html`<form class="fields panel" aria-label=${t("skills.giveForm")} onSubmit=${give}>
          <label>${t("skills.skill")}<select value=${grant.skill} onChange=${(/** @type {any} */ e) => setGrant({ ...grant, skill: e.currentTarget.value })}>
            ${(skills ?? []).map((k) => html`<option value=${k.id}>${k.name}</option>`)}</select></label>
          <label>${t("skills.staff")}<select value=${grant.who} onChange=${(/** @type {any} */ e) => setGrant({ ...grant, who: e.currentTarget.value })}>
            ${staff.map((p) => html`<option value=${p.id}>${p.name}</option>`)}</select></label>
          <label>${t("skills.level")}<input type="number" min="1" max="5" required value=${grant.level}
            onInput=${(/** @type {any} */ e) => setGrant({ ...grant, level: e.currentTarget.value })} /></label>
          <label>${t("skills.expires")}<input type="date" value=${grant.expires}
            onInput=${(/** @type {any} */ e) => setGrant({ ...grant, expires: e.currentTarget.value })} /></label>
          <div class="buttons"><button type="submit" class="primary">${t("skills.give")}</button>
            <button type="button" onClick=${() => setGrant(null)}>${t("common.cancel")}</button></div>
        </form>`
      : null}
    ${staff.length
      ? html`<section class="panel" aria-labelledby="held-title"><h2 id="held-title">${t("skills.held")}</h2>
          <ul>${staff.map(
            (p) => html`<li data-staff=${p.name}><strong>${p.name}</strong>:
              ${(held[p.id] ?? []).length === 0 ? t("skills.nothingHeld") : null}
              ${(held[p.id] ?? []).map(
                (h) => html`<span class="held">${t("skills.heldBy", { skill: h.skillName, level: h.level })} ${validity(h)}
                  ${mayWrite
                    ? html`<button type="button" onClick=${() => run(ok(api.DELETE("/api/v1/admin/skills/resources/{resourceId}/skills/{skillId}",
                        { params: { path: { resourceId: p.id, skillId: h.skillId } } })), t("skills.removed", { skill: h.skillName, name: p.name }))}>
                        ${t("skills.remove")}<span class="visually-hidden"> ${h.skillName} · ${p.name}</span></button>`
                    : null}</span> `,
              )}</li>`,
          )}</ul></section>`
      : null}
    <section class="panel" aria-labelledby="expiring-title"><h2 id="expiring-title">${t("skills.expiring")}</h2>
      ${expiring.length === 0 ? html`<p class="muted">${t("skills.noneExpiring")}</p>` : null}
      <ul>${expiring.map(
        (h) => html`<li data-expiring=${h.resourceName}>${h.resourceName}: ${t("skills.heldBy", { skill: h.skillName, level: h.level })} ${validity(h)}</li>`,
      )}</ul></section>
    ${skills?.length ? html`<${Requirements} api=${api} skills=${skills} mayWrite=${mayWrite} />` : null}
  `;
}

/**
 * The skills each activity asks of its staff, with the lowest level.
 * @param {{api: import("../shared/api.js").Client, skills: Schemas["SkillDto"][], mayWrite: boolean}} props
 */
function Requirements({ api, skills, mayWrite }) {
  const [products, setProducts] = useState(/** @type {Schemas["ProductDto"][]} */ ([]));
  /** productId → skillId → the lowest level, for the skills ticked */
  const [needs, setNeeds] = useState(/** @type {Record<string, Record<string, number>>} */ ({}));
  const [error, setError] = useState("");
  useEffect(() => {
    ok(api.GET("/api/v1/admin/products"))
      .then(async (p) => {
        const lists = await Promise.all(
          p.items.map((x) => ok(api.GET("/api/v1/admin/skills/products/{productId}/requirements", { params: { path: { productId: x.id } } }))),
        );
        setProducts(p.items);
        setNeeds(Object.fromEntries(p.items.map((x, i) => [x.id, Object.fromEntries(lists[i].items.map((r) => [r.skillId, r.minLevel]))])));
      })
      .catch((e) => setError(e.message));
  }, []);

  /** @param {Schemas["ProductDto"]} p */
  async function save(p) {
    try {
      const saved = await ok(api.POST("/api/v1/admin/skills/products/{productId}/requirements", {
        params: { path: { productId: p.id } },
        body: { requirements: Object.entries(needs[p.id] ?? {}).map(([skillId, minLevel]) => ({ skillId, minLevel })) },
      }));
      const list = saved.items.map((r) => t("skills.heldBy", { skill: r.skillName, level: r.minLevel })).join(", ") || t("res.needsNothing");
      notify(t("skills.needsSaved", { name: p.name, list }));
      setError("");
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }

  /** @param {string} product @param {string} skill @param {number | null} level (null: not asked) */
  function set(product, skill, level) {
    const next = { ...(needs[product] ?? {}) };
    if (level === null) delete next[skill];
    else next[skill] = level;
    setNeeds({ ...needs, [product]: next });
  }

  return html`<section class="panel" aria-labelledby="asks-title">
    <h2 id="asks-title">${t("skills.needs")}</h2>
    <p class="muted">${t("skills.needsAbout")}</p>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    ${products.map(
      (p) => html`<fieldset data-asks=${p.name}><legend>${p.name}</legend>
        ${skills.map((k) => {
          const level = needs[p.id]?.[k.id];
          return html`<div class="row"><label class="check"><input type="checkbox" checked=${level !== undefined} disabled=${!mayWrite}
              onChange=${() => set(p.id, k.id, level === undefined ? 1 : null)} />${k.name}</label>
            ${level !== undefined
              ? html`<label>${t("skills.minLevel")}<input type="number" min="1" max="5" value=${level} disabled=${!mayWrite}
                  onInput=${(/** @type {any} */ e) => set(p.id, k.id, Number(e.currentTarget.value) || 1)} /></label>`
              : null}</div>`;
        })}
        ${mayWrite ? html`<button type="button" onClick=${() => save(p)}>${t("booking.save")}</button>` : null}
      </fieldset>`,
    )}
  </section>`;
}
