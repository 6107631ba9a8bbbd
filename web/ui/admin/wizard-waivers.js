// The wizard's waivers step (spec Part A 4.2; only when the activity requires waivers):
// the held booking's waivers are marked collected on paper at the desk, or the customer
// is sent the signing link by email, or the step is skipped with a reason recorded on the
// booking as a note.
import { html, useState } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";

/** @typedef {import("../shared/api.js").Schemas} Schemas */

/** @param {import("./wizard.js").StepProps} props */
export function WaiversStep({ api, draft, update, next }) {
  const hold = /** @type {Schemas["AdminCreateResponse"]} */ (draft.hold);
  const [how, setHow] = useState(/** @type {"paper" | "link" | "skip"} */ ("link"));
  const [reason, setReason] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const everyoneNamed = draft.participants.length >= draft.partySize;

  /** @param {Event} e */
  async function submit(e) {
    e.preventDefault();
    setBusy(true);
    setError("");
    try {
      const bookingId = hold.bookingId;
      if (how === "paper") {
        // Each named participant's paper, signed by them (by the customer for a minor).
        const people = await ok(
          api.GET("/api/v1/waivers/booking/{bookingId}/participants/status", { params: { path: { bookingId } } }),
        );
        for (const p of people.data.participants.filter((x) => !x.isSigned)) {
          await ok(
            api.POST("/api/v1/admin/waivers/manual", {
              body: {
                bookingId,
                participantId: p.participantId,
                signedInPerson: true,
                signedBy: p.isMinor ? draft.customer.name.trim() : p.participantName,
              },
            }),
          );
        }
      } else if (how === "link") {
        await ok(api.POST("/api/v1/admin/waivers/{waiverRequestId}/remind", { params: { path: { waiverRequestId: bookingId } } }));
      } else {
        await ok(
          api.POST("/api/v1/admin/bookings/{bookingId}/notes", {
            params: { path: { bookingId } },
            body: { content: t("wizard.waivers.skippedNote", { reason: reason.trim() }), category: "general", isInternal: true },
          }),
        );
      }
      update({ waivers: how });
      next();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
    setBusy(false);
  }

  return html`<form class="fields" onSubmit=${submit}>
    <p class="muted">${t("wizard.waivers.help")}</p>
    <fieldset><legend>${t("wizard.waivers.how")}</legend>
      <label class="check"><input type="radio" name="waivers" checked=${how === "link"}
        onChange=${() => setHow("link")} />${t("wizard.waivers.link", { email: draft.customer.email })}</label>
      <label class="check"><input type="radio" name="waivers" checked=${how === "paper"} disabled=${!everyoneNamed}
        onChange=${() => setHow("paper")} />${t("wizard.waivers.paper")}</label>
      ${everyoneNamed ? null : html`<p class="muted">${t("wizard.waivers.nameEveryone")}</p>`}
      <label class="check"><input type="radio" name="waivers" checked=${how === "skip"}
        onChange=${() => setHow("skip")} />${t("wizard.waivers.skip")}</label>
    </fieldset>
    ${how === "skip"
      ? html`<label>${t("wizard.waivers.reason")}<textarea required maxlength="1000"
          onInput=${(/** @type {any} */ e) => setReason(e.currentTarget.value)}>${reason}</textarea></label>`
      : null}
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <button type="submit" class="primary" disabled=${busy}>${t("wizard.next")}</button>
  </form>`;
}
