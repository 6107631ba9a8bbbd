// Schedules: the opening hours of a site, a product or a resource (weekly templates), the
// dates that differ (overrides: other hours; blackouts: closed), and a week's calendar of
// the sessions they make. Slots follow every change on their own (spec Part B 4.12); a
// resource's hours decide when it can be used, without making sessions.
import { html, useState, useEffect } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";
import { time, addDays, longDate } from "../shared/format.js";
import { can } from "./session.js";
import { notify } from "./notices.js";

/** @typedef {import("../shared/api.js").Schemas} Schemas */

/** Bit 0 is Sunday … bit 6 Saturday; shown from Monday. */
const DAYS = [1, 2, 3, 4, 5, 6, 0];

/** @param {Schemas["TemplateDto"]} tpl */
function daysOf(tpl) {
  const mask = tpl.byDay ?? (tpl.dayOfWeek != null ? 1 << tpl.dayOfWeek : 127);
  if (tpl.recurrenceKind === "daily" || mask === 127) return t("sched.everyDay");
  return DAYS.filter((d) => mask & (1 << d)).map((d) => t(/** @type {any} */ (`sched.day.${d}`))).join(", ");
}

/** @param {import("./main.js").PageContext} props */
export function Schedules({ api, session }) {
  const [sites, setSites] = useState(/** @type {Schemas["SiteDto"][]} */ ([]));
  const [products, setProducts] = useState(/** @type {Schemas["ProductDto"][]} */ ([]));
  const [resources, setResources] = useState(/** @type {Schemas["ResourceDto"][]} */ ([]));
  const [scope, setScope] = useState(""); // "site:<id>", "product:<id>" or "resource:<id>"
  const [templates, setTemplates] = useState(/** @type {Schemas["TemplateDto"][]} */ ([]));
  const [closed, setClosed] = useState(/** @type {Schemas["DateRuleDto"][]} */ ([]));
  const [special, setSpecial] = useState(/** @type {Schemas["DateRuleDto"][]} */ ([]));
  const [form, setForm] = useState(/** @type {Record<string, any> | null} */ (null));
  const [error, setError] = useState("");
  const [round, setRound] = useState(0);
  const mayWrite = can(session, "admin:write");

  useEffect(() => {
    Promise.all([
      ok(api.GET("/api/v1/admin/sites")),
      ok(api.GET("/api/v1/admin/products")),
      ok(api.GET("/api/v1/admin/resources")),
    ]).then(([s, p, r]) => {
      setSites(s.items);
      setProducts(p.items);
      setResources(r.items);
      if (s.items[0]) setScope(`site:${s.items[0].id}`);
    });
  }, []);

  const [scopeType, scopeId] = /** @type {["site" | "product" | "resource", string]} */ (scope.split(":"));
  useEffect(() => {
    if (!scope) return;
    const query = { scopeType, scopeId };
    Promise.all([
      ok(api.GET("/api/v1/admin/schedules/templates", { params: { query } })),
      ok(api.GET("/api/v1/admin/schedules/blackouts", { params: { query } })),
      ok(api.GET("/api/v1/admin/schedules/overrides", { params: { query } })),
    ])
      .then(([tpl, bl, ov]) => (setTemplates(tpl.items), setClosed(bl.items), setSpecial(ov.items)))
      .catch((e) => setError(e.message));
  }, [scope, round]);

  /** @param {Promise<unknown>} call */
  async function run(call) {
    try {
      await call;
      notify(t("sched.saved"));
      setForm(null);
      setError("");
      setRound(round + 1);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }

  /** @param {Event} e */
  function save(e) {
    e.preventDefault();
    const v = /** @type {Record<string, any>} */ (form);
    if (v.kind === "template") {
      const byDay = DAYS.filter((d) => v.days[d]).reduce((m, d) => m | (1 << d), 0);
      if (byDay === 0) return setError(t("sched.pickDays"));
      run(ok(api.POST("/api/v1/admin/schedules/templates", {
        body: { scopeType, scopeId, startTime: v.start, endTime: v.end, recurrenceKind: "weekly", byDay },
      })));
    } else if (v.kind === "override") {
      run(ok(api.POST("/api/v1/admin/schedules/overrides", {
        body: { scopeType, scopeId, dateFrom: v.from, dateTo: v.to || v.from, startTime: v.start, endTime: v.end,
          ...(v.reason ? { reason: v.reason } : {}) },
      })));
    } else {
      run(ok(api.POST("/api/v1/admin/schedules/blackouts", {
        body: { scopeType, scopeId, dateFrom: v.from, dateTo: v.to || v.from, kind: v.why, ...(v.reason ? { reason: v.reason } : {}) },
      })));
    }
  }

  const product = scopeType === "product" ? products.find((p) => p.id === scopeId) : products.find((p) => p.siteId === scopeId);
  return html`
    <h1>${t("sched.title")}</h1>
    <label>${t("sched.for")}
      <select value=${scope} onChange=${(/** @type {any} */ e) => setScope(e.currentTarget.value)}>
        ${sites.map((s) => html`<option value=${`site:${s.id}`}>${s.name}</option>
          ${products.filter((p) => p.siteId === s.id).map((p) => html`<option value=${`product:${p.id}`}>   ${s.name}: ${p.name}</option>`)}
          ${resources.filter((r) => r.siteId === s.id).map((r) => html`<option value=${`resource:${r.id}`}>   ${t("sched.resourceOption", { site: s.name, name: r.name })}</option>`)}`)}
      </select></label>
    ${scopeType === "resource" ? html`<p class="muted">${t("sched.resourceNote")}</p>` : null}
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <section aria-labelledby="hours-title">
      <h2 id="hours-title">${t("sched.hours")}</h2>
      ${templates.length === 0 ? html`<p class="muted">${t(scopeType === "resource" ? "sched.noResourceHours" : "sched.noHours")}</p>` : null}
      <ul class="rules">${templates.map(
        (tpl) => html`<li data-template=${tpl.id}>${daysOf(tpl)} · ${tpl.startTime}–${tpl.endTime}
          ${mayWrite ? html` <button type="button" class="danger" onClick=${() =>
            run(ok(api.DELETE("/api/v1/admin/schedules/templates/{id}", { params: { path: { id: tpl.id } } })))}>${t("notes.delete")}</button>` : null}</li>`,
      )}</ul>
      ${mayWrite ? html`<button type="button" onClick=${() => setForm({ kind: "template", start: "10:00", end: "18:00",
        days: { 1: true, 2: true, 3: true, 4: true, 5: true } })}>${t("sched.addHours")}</button>` : null}
    </section>
    <section aria-labelledby="special-title">
      <h2 id="special-title">${t("sched.special")}</h2>
      ${special.length === 0 ? html`<p class="muted">${t("sched.noSpecial")}</p>` : null}
      <ul class="rules">${special.map(
        (o) => html`<li>${longDate(o.dateFrom)}${o.dateTo && o.dateTo !== o.dateFrom ? ` – ${longDate(o.dateTo)}` : ""}
          · ${o.startTime}–${o.endTime}${o.reason ? ` · ${o.reason}` : ""}
          ${mayWrite ? html` <button type="button" class="danger" onClick=${() =>
            run(ok(api.DELETE("/api/v1/admin/schedules/overrides/{id}", { params: { path: { id: o.id } } })))}>${t("notes.delete")}</button>` : null}</li>`,
      )}</ul>
      ${mayWrite ? html`<button type="button" onClick=${() => setForm({ kind: "override", from: "", to: "", start: "12:00", end: "16:00", reason: "" })}>
        ${t("sched.addSpecial")}</button>` : null}
    </section>
    <section aria-labelledby="closed-title">
      <h2 id="closed-title">${t("sched.closed")}</h2>
      ${closed.length === 0 ? html`<p class="muted">${t("sched.noClosed")}</p>` : null}
      <ul class="rules">${closed.map(
        (b) => html`<li>${longDate(b.dateFrom)}${b.dateTo && b.dateTo !== b.dateFrom ? ` – ${longDate(b.dateTo)}` : ""}
          · ${t(/** @type {any} */ (`sched.kind.${b.kind ?? "closure"}`))}${b.reason ? ` · ${b.reason}` : ""}
          ${mayWrite ? html` <button type="button" class="danger" onClick=${() =>
            run(ok(api.DELETE("/api/v1/admin/schedules/blackouts/{id}", { params: { path: { id: b.id } } })))}>${t("notes.delete")}</button>` : null}</li>`,
      )}</ul>
      ${mayWrite ? html`<button type="button" onClick=${() => setForm({ kind: "blackout", from: "", to: "", why: "holiday", reason: "" })}>
        ${t("sched.addClosed")}</button>` : null}
    </section>
    ${form ? html`<form class="fields panel" onSubmit=${save}
      aria-label=${t(form.kind === "template" ? "sched.hoursForm" : form.kind === "override" ? "sched.specialForm" : "sched.closedForm")}>
      ${form.kind === "template"
        ? html`<fieldset class="row"><legend>${t("sched.days")}</legend>${DAYS.map(
            (d) => html`<label class="check"><input type="checkbox" checked=${!!form.days[d]}
              onChange=${(/** @type {any} */ e) => setForm({ ...form, days: { ...form.days, [d]: e.currentTarget.checked } })} />
              ${t(/** @type {any} */ (`sched.day.${d}`))}</label>`,
          )}</fieldset>
          <label>${t("sched.opens")}<input type="time" required value=${form.start} onInput=${(/** @type {any} */ e) => setForm({ ...form, start: e.currentTarget.value })} /></label>
          <label>${t("sched.closes")}<input type="time" required value=${form.end} onInput=${(/** @type {any} */ e) => setForm({ ...form, end: e.currentTarget.value })} /></label>`
        : html`<label>${t("sched.from")}<input type="date" required value=${form.from} onInput=${(/** @type {any} */ e) => setForm({ ...form, from: e.currentTarget.value })} /></label>
          <label>${t("sched.to")}<input type="date" value=${form.to} onInput=${(/** @type {any} */ e) => setForm({ ...form, to: e.currentTarget.value })} /></label>
          ${form.kind === "override"
            ? html`<label>${t("sched.opens")}<input type="time" required value=${form.start} onInput=${(/** @type {any} */ e) => setForm({ ...form, start: e.currentTarget.value })} /></label>
              <label>${t("sched.closes")}<input type="time" required value=${form.end} onInput=${(/** @type {any} */ e) => setForm({ ...form, end: e.currentTarget.value })} /></label>
              <label>${t("sched.reason")}<input value=${form.reason} onInput=${(/** @type {any} */ e) => setForm({ ...form, reason: e.currentTarget.value })} /></label>`
            : html`<label>${t("sched.why")}<select value=${form.why} onChange=${(/** @type {any} */ e) => setForm({ ...form, why: e.currentTarget.value })}>
            ${["holiday", "maintenance", "closure", "event"].map((k) => html`<option value=${k}>${t(/** @type {any} */ (`sched.kind.${k}`))}</option>`)}</select></label>
          <label>${t("sched.reason")}<input value=${form.reason} onInput=${(/** @type {any} */ e) => setForm({ ...form, reason: e.currentTarget.value })} /></label>`}`}
      <div class="buttons"><button type="submit" class="primary">${t("booking.save")}</button>
        <button type="button" onClick=${() => setForm(null)}>${t("common.cancel")}</button></div>
    </form>` : null}
    ${product ? html`<${Week} api=${api} product=${product} site=${sites.find((s) => s.id === product.siteId)} round=${round} />` : null}
  `;
}

/**
 * A week of a product's sessions as the schedules make them: the calendar preview.
 * @param {{api: import("../shared/api.js").Client, product: Schemas["ProductDto"], site: Schemas["SiteDto"] | undefined, round: number}} props
 */
function Week({ api, product, site, round }) {
  const tz = site?.timezone ?? "UTC";
  const [from, setFrom] = useState(new Intl.DateTimeFormat("en-CA", { timeZone: tz }).format(new Date()));
  const [slots, setSlots] = useState(/** @type {Schemas["AvailabilitySlot"][] | null} */ (null));
  useEffect(() => {
    setSlots(null);
    ok(api.GET("/api/v1/availability", {
      params: { query: { site_id: product.siteId, product_id: product.id, date_from: from, date_to: addDays(from, 6), party_size: 1 } },
    })).then((a) => setSlots(a.slots));
  }, [product.id, from, round]);
  const days = Array.from({ length: 7 }, (_, i) => addDays(from, i));
  const dayOf = (/** @type {string} */ at) => new Intl.DateTimeFormat("en-CA", { timeZone: tz }).format(new Date(at));
  return html`<section aria-labelledby="week-title">
    <h2 id="week-title">${t("sched.week", { product: product.name })}</h2>
    <div class="row"><button type="button" onClick=${() => setFrom(addDays(from, -7))}>${t("sched.earlier")}</button>
      <button type="button" onClick=${() => setFrom(addDays(from, 7))}>${t("sched.later")}</button></div>
    <div class="week" data-testid="week">${days.map(
      (d) => html`<div class="week-day" data-day=${d}><h3>${longDate(d)}</h3>
        ${slots
          ? slots.filter((s) => dayOf(s.startsAt) === d).map((s) => html`<div class="week-slot">${time(s.startsAt, tz)}</div>`)
          : null}
        ${slots && !slots.some((s) => dayOf(s.startsAt) === d) ? html`<p class="muted">${t("sched.none")}</p>` : null}</div>`,
    )}</div>
  </section>`;
}
