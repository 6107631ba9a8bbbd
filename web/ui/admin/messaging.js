// What Kairos sends: message templates edited with a live preview (rendered by the API
// with sample data, as the customer will see it), the automation rules that send them,
// and gift cards: the products on sale and the purchases (delivery sent again).
import { html, useState, useEffect, useRef } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";
import { money, dateTime } from "../shared/format.js";
import { can } from "./session.js";
import { notify } from "./notices.js";

/** @typedef {import("../shared/api.js").Schemas} Schemas */

/** @param {import("./main.js").PageContext} props */
export function Templates({ api, session }) {
  const [templates, setTemplates] = useState(/** @type {Schemas["MessageTemplateDto"][]} */ ([]));
  const [rules, setRules] = useState(/** @type {Schemas["AutomationRuleDto"][]} */ ([]));
  const [editing, setEditing] = useState(/** @type {Schemas["MessageTemplateDto"] | null} */ (null));
  const [preview, setPreview] = useState(/** @type {Schemas["TemplatePreview"] | null} */ (null));
  const [error, setError] = useState("");
  const [rule, setRule] = useState(/** @type {Record<string, any> | null} */ (null));
  const mayWrite = can(session, "admin:write");
  const asked = useRef(0);
  const load = () =>
    Promise.all([ok(api.GET("/api/v1/admin/messaging/templates")), ok(api.GET("/api/v1/admin/messaging/automation-rules"))])
      .then(([tl, rl]) => (setTemplates(tl.templates), setRules(rl.rules)))
      .catch((e) => setError(e.message));
  useEffect(() => void load(), []);

  // The preview follows the text as it is typed (a short pause first; late answers dropped).
  useEffect(() => {
    if (!editing) return;
    const n = ++asked.current;
    const timer = setTimeout(() => {
      ok(api.POST("/api/v1/admin/messaging/templates/preview", {
        body: {
          templateKey: editing.templateKey,
          templateType: editing.templateType,
          subjectTemplate: editing.subjectTemplate,
          bodyTemplate: editing.bodyTemplate,
        },
      }))
        .then((p) => n === asked.current && (setPreview(p), setError("")))
        .catch((e) => n === asked.current && setError(e.message));
    }, 250);
    return () => clearTimeout(timer);
  }, [editing?.subjectTemplate, editing?.bodyTemplate, editing?.id]);

  /** @param {Event} e */
  async function save(e) {
    e.preventDefault();
    const v = /** @type {Schemas["MessageTemplateDto"]} */ (editing);
    const body = {
      templateKey: v.templateKey,
      languageCode: v.languageCode,
      templateType: v.templateType,
      subjectTemplate: v.subjectTemplate,
      bodyTemplate: v.bodyTemplate,
    };
    try {
      // A built-in (global) template is customised by a copy of the venue's own.
      if (v.isGlobal) await ok(api.POST("/api/v1/admin/messaging/templates", { body }));
      else await ok(api.PUT("/api/v1/admin/messaging/templates/{id}", { params: { path: { id: v.id } }, body }));
      notify(t("setup.saved"));
      setEditing(null);
      load();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  }

  /** @param {Schemas["AutomationRuleDto"]} r */
  async function switchRule(r) {
    try {
      await ok(api.PUT("/api/v1/admin/messaging/automation-rules/{id}", { params: { path: { id: r.id } }, body: { isActive: !r.isActive } }));
      load();
    } catch (e) {
      notify(e instanceof Error ? e.message : String(e), "error");
    }
  }

  /** @param {Event} e */
  async function addRule(e) {
    e.preventDefault();
    const v = /** @type {Record<string, any>} */ (rule);
    try {
      await ok(api.POST("/api/v1/admin/messaging/automation-rules", {
        body: {
          name: v.name,
          triggerEvent: v.triggerEvent,
          templateKey: v.templateKey,
          ...(Number(v.offset) ? { triggerOffset: Number(v.offset), triggerOffsetUnit: v.unit } : {}),
        },
      }));
      notify(t("setup.saved"));
      setRule(null);
      load();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  }

  return html`
    <h1>${t("msg.title")}</h1>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <table class="bookings list"><thead><tr><th scope="col">${t("msg.key")}</th><th scope="col">${t("msg.language")}</th>
      <th scope="col">${t("messages.subject")}</th><th scope="col">${t("msg.whose")}</th><th scope="col"></th></tr></thead>
      <tbody>${templates.map(
        (tp) => html`<tr data-template=${`${tp.templateKey}:${tp.languageCode}:${tp.isGlobal}`}><td><code>${tp.templateKey}</code></td>
          <td>${tp.languageCode}</td><td>${tp.subjectTemplate}</td><td>${tp.isGlobal ? t("msg.builtIn") : t("msg.yours")}</td>
          <td>${mayWrite ? html`<button type="button" onClick=${() => setEditing({ ...tp })}>${t("setup.edit")}</button>` : null}</td></tr>`,
      )}</tbody></table>
    ${editing
      ? html`<div class="editor">
          <form class="fields" onSubmit=${save} aria-label=${t("msg.editor")}>
            <p class="muted">${editing.isGlobal ? t("msg.copyNote") : ""} ${t("msg.variables")}</p>
            <label>${t("messages.subject")}<input value=${editing.subjectTemplate}
              onInput=${(/** @type {any} */ e) => setEditing({ ...editing, subjectTemplate: e.currentTarget.value })} /></label>
            <label>${t("msg.body")}<textarea rows="12" value=${editing.bodyTemplate}
              onInput=${(/** @type {any} */ e) => setEditing({ ...editing, bodyTemplate: e.currentTarget.value })}></textarea></label>
            <div class="buttons"><button type="submit" class="primary">${t("booking.save")}</button>
              <button type="button" onClick=${() => (setEditing(null), setPreview(null))}>${t("common.cancel")}</button></div>
          </form>
          <section class="panel" aria-labelledby="preview-h" aria-live="polite" data-testid="template-preview">
            <h2 id="preview-h">${t("msg.preview")}</h2>
            ${preview
              ? html`<p><strong>${preview.subject}</strong></p><pre class="message-body">${preview.body}</pre>
                  ${preview.warnings.map((w) => html`<p class="note">${w}</p>`)}`
              : html`<p aria-busy="true">${t("common.loading")}</p>`}
          </section>
        </div>`
      : null}
    <h2>${t("msg.rules")}</h2>
    <table class="bookings list"><thead><tr><th scope="col">${t("setup.name")}</th><th scope="col">${t("msg.when")}</th>
      <th scope="col">${t("msg.key")}</th><th scope="col">${t("setup.active")}</th><th scope="col"></th></tr></thead>
      <tbody>${rules.map(
        (r) => html`<tr data-rule=${r.name}><td>${r.name}</td><td>${t(/** @type {any} */ (`msg.trigger.${r.triggerEvent}`))}${r.triggerOffset
          ? ` ${r.triggerOffset > 0 ? "+" : ""}${r.triggerOffset} ${t(/** @type {any} */ (`msg.unit.${r.triggerOffsetUnit}`))}` : ""}</td>
          <td><code>${r.templateKey}</code></td><td>${r.isActive ? t("setup.yes") : t("setup.no")}</td>
          <td>${mayWrite ? html`<button type="button" onClick=${() => switchRule(r)}>${r.isActive ? t("promo.off") : t("promo.on")}</button>` : null}</td></tr>`,
      )}</tbody></table>
    ${mayWrite && !rule
      ? html`<p><button type="button" onClick=${() => setRule({ name: "", triggerEvent: "booking_date", offset: "-24", unit: "hours", templateKey: "booking_reminder" })}>
          ${t("msg.addRule")}</button></p>`
      : null}
    ${rule
      ? html`<form class="fields panel" onSubmit=${addRule} aria-label=${t("msg.ruleForm")}>
          <label>${t("setup.name")}<input required value=${rule.name} onInput=${(/** @type {any} */ e) => setRule({ ...rule, name: e.currentTarget.value })} /></label>
          <label>${t("msg.when")}<select value=${rule.triggerEvent} onChange=${(/** @type {any} */ e) => setRule({ ...rule, triggerEvent: e.currentTarget.value })}>
            ${["booking_created", "booking_confirmed", "booking_completed", "booking_date"].map(
              (x) => html`<option value=${x}>${t(/** @type {any} */ (`msg.trigger.${x}`))}</option>`)}</select></label>
          <label>${t("msg.offset")}<input type="number" value=${rule.offset} onInput=${(/** @type {any} */ e) => setRule({ ...rule, offset: e.currentTarget.value })} /></label>
          <label>${t("msg.unit")}<select value=${rule.unit} onChange=${(/** @type {any} */ e) => setRule({ ...rule, unit: e.currentTarget.value })}>
            ${["hours", "days"].map((u) => html`<option value=${u}>${t(/** @type {any} */ (`msg.unit.${u}`))}</option>`)}</select></label>
          <label>${t("msg.key")}<select value=${rule.templateKey} onChange=${(/** @type {any} */ e) => setRule({ ...rule, templateKey: e.currentTarget.value })}>
            ${[...new Set(templates.map((tp) => tp.templateKey))].map((k) => html`<option value=${k}>${k}</option>`)}</select></label>
          <div class="buttons"><button type="submit" class="primary">${t("booking.save")}</button>
            <button type="button" onClick=${() => setRule(null)}>${t("common.cancel")}</button></div>
        </form>`
      : null}
  `;
}

/** @param {import("./main.js").PageContext} props */
export function GiftCards({ api, session }) {
  const [products, setProducts] = useState(/** @type {Schemas["GiftCardProductDto"][]} */ ([]));
  const [form, setForm] = useState(/** @type {Record<string, any> | null} */ (null));
  const mayWrite = can(session, "admin:write");
  const [purchases, setPurchases] = useState(/** @type {Schemas["AdminGiftCardPurchase"][]} */ ([]));
  const [error, setError] = useState("");
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const load = () =>
    Promise.all([ok(api.GET("/api/v1/admin/gift-card-products")), ok(api.GET("/api/v1/admin/gift-card-purchases"))])
      .then(([p, q]) => (setProducts(p.items), setPurchases(q.items)))
      .catch((e) => setError(e.message));
  useEffect(() => void load(), []);

  /** @param {string} id */
  async function resend(id) {
    try {
      await ok(api.POST("/api/v1/admin/gift-card-purchases/{id}/resend", { params: { path: { id } } }));
      notify(t("gift.resent"));
      load();
    } catch (e) {
      notify(e instanceof Error ? e.message : String(e), "error");
    }
  }

  /** @param {Promise<unknown>} call */
  async function run(call) {
    try {
      await call;
      notify(t("setup.saved"));
      setForm(null);
      setError("");
      load();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }

  /** @param {Event} e */
  function add(e) {
    e.preventDefault();
    const v = /** @type {Record<string, any>} */ (form);
    run(ok(api.POST("/api/v1/admin/gift-card-products", {
      body: {
        name: v.name,
        valueType: v.fixed ? "fixed" : "custom_range",
        ...(v.fixed ? { fixedValue: Number(v.value) } : { minValue: Number(v.min), maxValue: Number(v.max) }),
        validityDays: Number(v.days),
      },
    })));
  }

  return html`
    <h1>${t("gift.title")}</h1>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <h2>${t("gift.onSale")}</h2>
    <ul>${products.map(
      (p) => html`<li data-gift=${p.name}><strong>${p.name}</strong> · ${p.valueType === "fixed"
        ? money(p.fixedValue ?? 0, p.currency)
        : `${money(p.minValue ?? 0, p.currency)}–${money(p.maxValue ?? 0, p.currency)}`} · ${t("gift.valid", { days: p.validityDays })}
        ${p.isActive ? "" : ` · ${t("gift.off")}`}
        ${mayWrite ? html` <button type="button" onClick=${() =>
          run(ok(api.PATCH("/api/v1/admin/gift-card-products/{id}", { params: { path: { id: p.id } }, body: { isActive: !p.isActive } })))}>
          ${p.isActive ? t("gift.stop") : t("gift.start")}</button>` : null}</li>`,
    )}</ul>
    ${mayWrite && !form ? html`<p><button type="button" onClick=${() => setForm({ name: "", fixed: true, value: "50", min: "20", max: "200", days: "365" })}>
      ${t("gift.add")}</button></p>` : null}
    ${form
      ? html`<form class="fields panel" onSubmit=${add} aria-label=${t("gift.form")}>
          <label>${t("setup.name")}<input required value=${form.name} onInput=${(/** @type {any} */ e) => setForm({ ...form, name: e.currentTarget.value })} /></label>
          <label class="check"><input type="checkbox" checked=${form.fixed} onChange=${(/** @type {any} */ e) => setForm({ ...form, fixed: e.currentTarget.checked })} />
            ${t("gift.fixed")}</label>
          ${form.fixed
            ? html`<label>${t("vouchers.value")}<input type="number" min="1" step="0.01" required value=${form.value}
                onInput=${(/** @type {any} */ e) => setForm({ ...form, value: e.currentTarget.value })} /></label>`
            : html`<label>${t("gift.min")}<input type="number" min="1" step="0.01" required value=${form.min}
                onInput=${(/** @type {any} */ e) => setForm({ ...form, min: e.currentTarget.value })} /></label>
              <label>${t("gift.max")}<input type="number" min="1" step="0.01" required value=${form.max}
                onInput=${(/** @type {any} */ e) => setForm({ ...form, max: e.currentTarget.value })} /></label>`}
          <label>${t("gift.days")}<input type="number" min="1" required value=${form.days}
            onInput=${(/** @type {any} */ e) => setForm({ ...form, days: e.currentTarget.value })} /></label>
          <div class="buttons"><button type="submit" class="primary">${t("booking.save")}</button>
            <button type="button" onClick=${() => setForm(null)}>${t("common.cancel")}</button></div>
        </form>`
      : null}
    <h2>${t("gift.purchases")}</h2>
    ${purchases.length === 0 ? html`<p class="muted">${t("gift.none")}</p>` : null}
    <table class="bookings list"><thead><tr><th scope="col">${t("dlq.when")}</th><th scope="col">${t("gift.from")}</th>
      <th scope="col">${t("messages.to")}</th><th scope="col">${t("booking.amount")}</th><th scope="col">${t("day.status")}</th><th scope="col"></th></tr></thead>
      <tbody>${purchases.map(
        (p) => html`<tr data-purchase=${p.recipientEmail}><td>${dateTime(p.createdAt, tz)}</td><td>${p.purchaserEmail}</td>
          <td>${p.recipientEmail}</td><td>${money(p.amount, p.currency)}</td>
          <td>${p.status}${p.voucherCode ? html`<div><code>${p.voucherCode}</code></div>` : null}</td>
          <td>${p.status === "delivered" || p.status === "paid"
            ? html`<button type="button" onClick=${() => resend(p.purchaseId)}>${t("gift.resend")}</button>` : null}</td></tr>`,
      )}</tbody></table>
  `;
}
