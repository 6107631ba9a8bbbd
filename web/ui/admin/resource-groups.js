// Resource groups (spec Part A 4.11): a site's rooms and equipment grouped, each group
// with booking rules its members follow unless they set their own, and the rules in force
// for each member.
import { html, useState, useEffect } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";
import { can } from "./session.js";
import { notify } from "./notices.js";

/** @typedef {import("../shared/api.js").Schemas} Schemas */

const RULES = /** @type {const} */ ([
  ["bufferBeforeMins", "groups.bufferBefore", 0, 1440],
  ["bufferAfterMins", "groups.bufferAfter", 0, 1440],
  ["minLeadMins", "groups.minLead", 0, 525600],
  ["maxAdvanceDays", "groups.maxAdvance", 1, 730],
  ["maxDurationMins", "groups.maxDuration", 1, 1440],
]);

/** @param {Schemas["PoliciesDto"]} p the rules in force, in words */
function inForce(p) {
  return [
    t("groups.rule.buffers", { before: p.bufferBeforeMins, after: p.bufferAfterMins }),
    p.minLeadMins > 0 ? t("groups.rule.lead", { n: p.minLeadMins }) : "",
    p.maxAdvanceDays != null ? t("groups.rule.advance", { n: p.maxAdvanceDays }) : "",
    p.maxDurationMins != null ? t("groups.rule.duration", { n: p.maxDurationMins }) : "",
    p.customerBookable ? "" : t("groups.rule.staffOnly"),
  ]
    .filter(Boolean)
    .join(", ");
}

/** @param {import("./main.js").PageContext} props */
export function ResourceGroups({ api, session }) {
  const [sites, setSites] = useState(/** @type {Schemas["SiteDto"][]} */ ([]));
  const [site, setSite] = useState("");
  const [groups, setGroups] = useState(/** @type {Schemas["GroupDto"][] | null} */ (null));
  const [resources, setResources] = useState(/** @type {Schemas["ResourceDto"][]} */ ([]));
  const [rules, setRules] = useState(/** @type {Record<string, Schemas["EffectivePolicies"]>} */ ({}));
  const [form, setForm] = useState(/** @type {{name: string, description: string} | null} */ (null));
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
    Promise.all([
      ok(api.GET("/api/v1/admin/resource-groups", { params: { query: { siteId: site } } })),
      ok(api.GET("/api/v1/admin/resources", { params: { query: { siteId: site } } })),
    ])
      .then(async ([g, r]) => {
        const grouped = r.items.filter((x) => x.groupId);
        const effective = await Promise.all(
          grouped.map((x) =>
            ok(api.GET("/api/v1/admin/resource-groups/resources/{resourceId}/effective-policies", { params: { path: { resourceId: x.id } } })),
          ),
        );
        setGroups(g.items);
        setResources(r.items);
        setRules(Object.fromEntries(grouped.map((x, i) => [x.id, effective[i]])));
      })
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

  return html`
    <h1>${t("nav.groups")}</h1>
    <p class="muted">${t("nav.groups.about")}</p>
    ${sites.length > 1
      ? html`<label>${t("res.site")}<select value=${site} onChange=${(/** @type {any} */ e) => setSite(e.currentTarget.value)}>
          ${sites.map((s) => html`<option value=${s.id}>${s.name}</option>`)}</select></label>`
      : null}
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    ${groups && groups.length === 0 ? html`<p class="muted">${t("groups.none")}</p>` : null}
    ${(groups ?? []).map(
      (g) => html`<${Group} key=${g.id} api=${api} group=${g} resources=${resources} rules=${rules} mayWrite=${mayWrite} run=${run} />`,
    )}
    ${form
      ? html`<form class="fields panel" aria-label=${t("groups.form")} onSubmit=${(/** @type {Event} */ e) => (e.preventDefault(),
          run(ok(api.POST("/api/v1/admin/resource-groups", { body: { siteId: site, name: form.name.trim(), description: form.description.trim() } })),
            t("groups.added", { name: form.name.trim() })))}>
          <label>${t("setup.name")}<input required maxlength="200" value=${form.name}
            onInput=${(/** @type {any} */ e) => setForm({ ...form, name: e.currentTarget.value })} /></label>
          <label>${t("setup.description")}<input maxlength="1000" value=${form.description}
            onInput=${(/** @type {any} */ e) => setForm({ ...form, description: e.currentTarget.value })} /></label>
          <div class="buttons"><button type="submit" class="primary">${t("booking.save")}</button>
            <button type="button" onClick=${() => setForm(null)}>${t("common.cancel")}</button></div>
        </form>`
      : mayWrite && site
        ? html`<p><button type="button" class="primary" onClick=${() => setForm({ name: "", description: "" })}>${t("groups.new")}</button></p>`
        : null}
  `;
}

/**
 * One group: its members (put in, taken out, with the rules in force for each) and its
 * own booking rules.
 * @param {{api: import("../shared/api.js").Client, group: Schemas["GroupDto"], resources: Schemas["ResourceDto"][],
 *   rules: Record<string, Schemas["EffectivePolicies"]>, mayWrite: boolean,
 *   run: (call: Promise<unknown>, done: string) => Promise<void>}} props
 */
function Group({ api, group, resources, rules, mayWrite, run }) {
  const members = resources.filter((r) => r.groupId === group.id);
  const others = resources.filter((r) => r.groupId !== group.id && r.resourceType !== "STAFF");
  const [pick, setPick] = useState("");
  /** The group's own rules as the form holds them: "" is not set. */
  const own = () => ({
    ...Object.fromEntries(RULES.map(([key]) => [key, group.policies[key] == null ? "" : String(group.policies[key])])),
    customerBookable: group.policies.customerBookable == null ? "" : String(group.policies.customerBookable),
  });
  const [values, setValues] = useState(own);
  useEffect(() => setValues(own()), [group.updatedAt]);
  const id = `group-${group.id}`;

  function saveRules(/** @type {Event} */ e) {
    e.preventDefault();
    const body = {
      ...Object.fromEntries(RULES.map(([key]) => [key, values[key] === "" ? null : Number(values[key])])),
      customerBookable: values.customerBookable === "" ? null : values.customerBookable === "true",
    };
    run(ok(api.PATCH("/api/v1/admin/resource-groups/{id}/policies", { params: { path: { id: group.id } }, body })),
      t("groups.rulesSaved", { name: group.name }));
  }

  return html`<section class="panel" aria-labelledby=${id} data-group=${group.name}>
    <h2 id=${id}>${group.name}</h2>
    ${group.description ? html`<p class="muted">${group.description}</p>` : null}
    <h3>${t("groups.members")}</h3>
    ${members.length === 0 ? html`<p class="muted">${t("groups.noMembers")}</p>` : null}
    <ul>${members.map(
      (r) => html`<li data-member=${r.name}>${r.name}
        ${rules[r.id] ? html` <span class="muted">${t("groups.inForce", { rules: inForce(rules[r.id].policies) })}</span>` : null}
        ${mayWrite
          ? html` <button type="button" onClick=${() => run(ok(api.DELETE("/api/v1/admin/resource-groups/unassign/{resourceId}",
              { params: { path: { resourceId: r.id } } })), t("groups.taken", { resource: r.name }))}>
              ${t("groups.remove")}<span class="visually-hidden"> ${r.name}</span></button>`
          : null}</li>`,
    )}</ul>
    ${mayWrite && others.length
      ? html`<div class="row"><label>${t("groups.addWhich", { name: group.name })}<select value=${pick}
            onChange=${(/** @type {any} */ e) => setPick(e.currentTarget.value)}>
            <option value="">—</option>${others.map((r) => html`<option value=${r.id}>${r.name}</option>`)}</select></label>
          <button type="button" disabled=${!pick} onClick=${() => run(ok(api.POST("/api/v1/admin/resource-groups/assign",
            { body: { groupId: group.id, resourceId: pick } })), t("groups.put", { resource: others.find((r) => r.id === pick)?.name ?? "", group: group.name }))}>
            ${t("groups.add")}</button></div>`
      : null}
    <form class="fields" aria-label=${t("groups.rules", { name: group.name })} onSubmit=${saveRules}>
      <h3>${t("groups.rules", { name: group.name })}</h3>
      <p class="muted">${t("groups.rulesAbout")}</p>
      ${RULES.map(([key, label, min, max]) => html`<label>${t(label)}<input type="number" min=${min} max=${max} value=${values[key]}
        disabled=${!mayWrite} onInput=${(/** @type {any} */ e) => setValues({ ...values, [key]: e.currentTarget.value })} /></label>`)}
      <label>${t("groups.customers")}<select value=${values.customerBookable} disabled=${!mayWrite}
        onChange=${(/** @type {any} */ e) => setValues({ ...values, customerBookable: e.currentTarget.value })}>
        <option value="">${t("groups.customers.default")}</option><option value="true">${t("setup.yes")}</option>
        <option value="false">${t("setup.no")}</option></select></label>
      ${mayWrite
        ? html`<div class="buttons"><button type="submit" class="primary">${t("booking.save")}</button>
            <button type="button" onClick=${() => run(ok(api.DELETE("/api/v1/admin/resource-groups/{id}", { params: { path: { id: group.id } } })),
              t("groups.deleted", { name: group.name }))}>${t("groups.delete")}</button></div>`
        : null}
    </form>
  </section>`;
}
