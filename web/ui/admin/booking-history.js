// A booking's history on its page: every entry of its audit log, oldest first, in words:
// who did what and when, with each changed field's previous and new value.
import { html } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { dateTime } from "../shared/format.js";
import { statusName } from "./day-sheet.js";

/** @typedef {import("../shared/api.js").Schemas} Schemas */

/** Fields whose edits are shown as "field: from → to". */
const FIELDS = /** @type {const} */ (["customerName", "customerEmail", "customerPhone"]);

/** @param {unknown} v */
const shown = (v) => (v === null || v === undefined || v === "" ? "—" : String(v));

/**
 * What one entry says.
 * @param {Schemas["AuditItem"]} e
 */
function describe(e) {
  const changes = /** @type {Record<string, any>} */ (e.changes ?? {});
  const status = changes.status;
  if (e.action === "booking.created" || e.action === "booking.status_changed") {
    const to = status?.to ? statusName(status.to) : "";
    const from = status?.from ? `${statusName(status.from)} → ` : "";
    const reason = typeof changes.reason === "string" ? ` · ${changes.reason}` : "";
    return `${e.action === "booking.created" ? t("history.created") : t("history.status")}: ${from}${to}${reason}`;
  }
  const key = `history.${e.action.replace("booking.", "")}`;
  const known = t(/** @type {any} */ (key));
  const label = known === key ? e.action : known;
  const fields = FIELDS.filter((f) => changes[f]).map(
    (f) => `${t(/** @type {any} */ (`history.field.${f}`))}: ${shown(changes[f].from)} → ${shown(changes[f].to)}`,
  );
  return fields.length > 0 ? `${label}: ${fields.join("; ")}` : label;
}

/** @param {{log: Schemas["AuditItem"][], tz: string}} props */
export function History({ log, tz }) {
  return html`
    <section aria-labelledby="b-history">
      <h2 id="b-history">${t("booking.history")}</h2>
      <ol class="history" data-testid="history">${log.map(
        (e) => html`<li>${dateTime(e.at, tz)}: ${describe(e)}
          <span class="muted"> · ${e.actorName ?? t(/** @type {any} */ (`history.actor.${e.actorType}`))}</span></li>`,
      )}</ol>
    </section>
  `;
}
