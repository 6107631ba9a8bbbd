// What went wrong and waits for staff: the dead-letter queue (messages, payments and
// booking operations that failed for good: retry, resolve or skip each), and the message
// log (every email and SMS with its delivery status).
import { html, useState, useEffect } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";
import { dateTime } from "../shared/format.js";
import { can } from "./session.js";
import { notify } from "./notices.js";

/** @typedef {import("../shared/api.js").Schemas} Schemas */

const tz = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** @param {import("./main.js").PageContext} props */
export function DeadLetters({ api, session }) {
  const [status, setStatus] = useState("open");
  const [list, setList] = useState(/** @type {Schemas["DeadLetterList"] | null} */ (null));
  const [error, setError] = useState("");
  const [skipping, setSkipping] = useState(/** @type {{id: string, reason: string} | null} */ (null));
  const mayWrite = can(session, "admin:write");

  async function load() {
    try {
      setList(await ok(api.GET("/api/v1/admin/dead-letters", { params: { query: { status, perPage: 100 } } })));
      setError("");
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }
  useEffect(() => void load(), [status]);

  /** @param {Promise<unknown>} call @param {string} done */
  async function act(call, done) {
    try {
      await call;
      notify(done);
      setSkipping(null);
      await load();
    } catch (e) {
      notify(e instanceof Error ? e.message : String(e), "error");
    }
  }

  return html`
    <h1>${t("dlq.title")}</h1>
    <p>${t("dlq.help")}</p>
    <label>${t("day.status")}
      <select value=${status} onChange=${(/** @type {any} */ e) => setStatus(e.currentTarget.value)}>
        ${["open", "retrying", "resolved", "skipped"].map((s) => html`<option value=${s}>${t(/** @type {any} */ (`dlq.status.${s}`))}</option>`)}
      </select></label>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    ${list && list.deadLetters.length === 0 ? html`<p data-testid="dlq-empty">${t("dlq.none")}</p>` : null}
    ${list && list.deadLetters.length > 0
      ? html`<table class="bookings list"><thead><tr>
          <th scope="col">${t("dlq.when")}</th><th scope="col">${t("dlq.what")}</th><th scope="col">${t("dlq.error")}</th>
          <th scope="col">${t("dlq.tries")}</th>${mayWrite ? html`<th scope="col">${t("day.actions")}</th>` : null}
        </tr></thead><tbody>${list.deadLetters.map(
          (d) => html`<tr data-dead-letter=${d.id}>
            <td>${dateTime(d.failedAt, tz())}</td>
            <td>${t(/** @type {any} */ (`dlq.type.${d.type}`))} (${d.kind})</td>
            <td>${d.errorMessage}<div class="muted">${d.errorType}</div>
              ${d.resolution ? html`<div class="note">${d.resolution}</div>` : null}</td>
            <td>${d.retryCount}</td>
            ${mayWrite
              ? html`<td class="actions">${d.status === "open"
                  ? skipping?.id === d.id
                    ? html`<form class="row" onSubmit=${(/** @type {Event} */ e) => (e.preventDefault(),
                        act(ok(api.POST("/api/v1/admin/dead-letters/{id}/skip", { params: { path: { id: d.id } }, body: { reason: skipping.reason } })), t("dlq.skipped")))}>
                        <label>${t("dlq.why")}<input required value=${skipping.reason}
                          onInput=${(/** @type {any} */ e) => setSkipping({ id: d.id, reason: e.currentTarget.value })} /></label>
                        <button type="submit">${t("dlq.skip")}</button></form>`
                    : html`
                      <button type="button" onClick=${() => act(ok(api.POST("/api/v1/admin/dead-letters/{id}/retry", { params: { path: { id: d.id } } })), t("dlq.retried"))}>
                        ${t("dlq.retry")}</button>
                      <button type="button" onClick=${() => act(ok(api.POST("/api/v1/admin/dead-letters/{id}/resolve", { params: { path: { id: d.id } }, body: {} })), t("dlq.resolved"))}>
                        ${t("dlq.resolve")}</button>
                      <button type="button" onClick=${() => setSkipping({ id: d.id, reason: "" })}>${t("dlq.skip")}…</button>`
                  : null}</td>`
              : null}
          </tr>`,
        )}</tbody></table>`
      : null}
  `;
}

/** @param {import("./main.js").PageContext} props */
export function Messages({ api }) {
  const [status, setStatus] = useState("");
  const [list, setList] = useState(/** @type {Schemas["MessageDto"][] | null} */ (null));
  const [error, setError] = useState("");
  const [open, setOpen] = useState(/** @type {string | null} */ (null));
  const [round, setRound] = useState(0);
  useEffect(() => {
    ok(api.GET("/api/v1/admin/messaging/messages", { params: { query: { status: status || undefined, limit: 100 } } }))
      .then((r) => setList(r.messages))
      .catch((e) => setError(e.message));
  }, [status, round]);
  return html`
    <h1>${t("messages.title")}</h1>
    <label>${t("day.status")}
      <select value=${status} onChange=${(/** @type {any} */ e) => setStatus(e.currentTarget.value)}>
        <option value="">${t("bookings.any")}</option>
        ${["queued", "delivered", "failed", "canceled"].map((s) => html`<option value=${s}>${t(/** @type {any} */ (`messages.status.${s}`))}</option>`)}
      </select></label>
    <button type="button" onClick=${() => setRound(round + 1)}>${t("messages.refresh")}</button>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    ${list && list.length === 0 ? html`<p>${t("messages.none")}</p>` : null}
    ${list && list.length > 0
      ? html`<table class="bookings list"><thead><tr><th scope="col">${t("dlq.when")}</th><th scope="col">${t("messages.to")}</th>
          <th scope="col">${t("messages.subject")}</th><th scope="col">${t("day.status")}</th></tr></thead>
          <tbody>${list.map(
            (m) => html`<tr data-message=${m.id}><td>${dateTime(m.createdAt, tz())}</td>
              <td>${m.recipient}<div class="muted">${m.channel}</div></td>
              <td><button type="button" class="link" aria-expanded=${open === m.id}
                  onClick=${() => setOpen(open === m.id ? null : m.id)}>${m.subject ?? m.templateKey ?? m.channel}</button>
                ${open === m.id ? html`<pre class="message-body">${m.body}</pre>` : null}</td>
              <td>${t(/** @type {any} */ (`messages.status.${m.status}`))}${m.lastError ? html`<div class="muted">${m.lastError}</div>` : null}</td></tr>`,
          )}</tbody></table>`
      : null}
  `;
}
