// The new booking wizard at /admin/operations/bookings/new (spec Part A 4.2): site,
// product, date and time, variant, add-ons, customer, participants, promotions, review and
// pay, with a waivers step after the codes when the activity requires waivers
// (wizard-waivers.js). The hold is made when the wizard reaches promotions, so codes are
// validated on the held booking; changing an earlier step after that lets the hold go
// and makes a new one.
import { html, useState, useEffect, useRef } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";
import { can } from "./session.js";
import { SiteStep, ProductStep, TimeStep, VariantStep, AddonStep } from "./wizard-choose.js";
import { CustomerStep, ParticipantsStep } from "./wizard-people.js";
import { PromotionsStep, ReviewStep, DoneStep } from "./wizard-pay.js";
import { WaiversStep } from "./wizard-waivers.js";

/** @typedef {import("../shared/api.js").Schemas} Schemas */
/** @typedef {import("./main.js").PageContext} PageContext */

/**
 * What the wizard has gathered.
 * @typedef {object} Draft
 * @property {Schemas["SiteDto"] | null} site
 * @property {Schemas["ProductDto"] | null} product
 * @property {string} date local date YYYY-MM-DD
 * @property {number} partySize
 * @property {import("../shared/type-counts.js").TypeCounts} types places by participant type
 * @property {Schemas["AvailabilitySlot"] | null} slot
 * @property {Schemas["VariantDto"] | null} variant
 * @property {Record<string, number>} addons add-on id → quantity
 * @property {import("../shared/rooms.js").RoomChoice[]} rooms rooms and equipment chosen, one per offer
 * @property {{name: string, email: string, phone: string, specialRequests: string}} customer
 * @property {Schemas["Participant"][]} participants
 * @property {{createdReason: Schemas["CreatedReason"], adminNotes: string, termsAccepted: boolean, sendEmail: boolean}} staff
 *   what staff record with the booking
 * @property {Schemas["AdminCreateResponse"] | null} hold
 * @property {Schemas["PricedBookingDto"] | null} priced the hold's price after codes
 * @property {string[]} codes promotion codes applied
 * @property {string[]} vouchers voucher and gift card codes applied
 * @property {Schemas["BookingResponse"] | null} confirmed
 * @property {"paper" | "link" | "skip" | null} waivers how the waivers step left them
 */

/** @returns {Draft} */
export function emptyDraft() {
  return {
    site: null,
    product: null,
    date: "",
    partySize: 2,
    types: {},
    slot: null,
    variant: null,
    addons: {},
    rooms: [],
    customer: { name: "", email: "", phone: "", specialRequests: "" },
    participants: [],
    staff: { createdReason: "phone_booking", adminNotes: "", termsAccepted: false, sendEmail: true },
    hold: null,
    priced: null,
    codes: [],
    vouchers: [],
    confirmed: null,
    waivers: null,
  };
}

/**
 * The wizard's steps, in order: key, title, component.
 * @type {{key: string, title: import("../shared/i18n.js").Key, component: any}[]}
 */
const ALL_STEPS = [
  { key: "site", title: "wizard.step.site", component: SiteStep },
  { key: "product", title: "wizard.step.product", component: ProductStep },
  { key: "time", title: "wizard.step.time", component: TimeStep },
  { key: "variant", title: "wizard.step.variant", component: VariantStep },
  { key: "addons", title: "wizard.step.addons", component: AddonStep },
  { key: "customer", title: "wizard.step.customer", component: CustomerStep },
  { key: "participants", title: "wizard.step.participants", component: ParticipantsStep },
  { key: "promotions", title: "wizard.step.promotions", component: PromotionsStep },
  { key: "waivers", title: "wizard.step.waivers", component: WaiversStep },
  { key: "review", title: "wizard.step.review", component: ReviewStep },
];

/**
 * The steps for a draft: the waivers step only for an activity that requires waivers.
 * @param {Draft} draft
 */
function stepsOf(draft) {
  return ALL_STEPS.filter((s) => s.key !== "waivers" || draft.product?.requiresWaiver);
}

/**
 * What every step gets.
 * @typedef {object} StepProps
 * @property {import("../shared/api.js").Client} api
 * @property {import("./session.js").Session} session
 * @property {Draft} draft
 * @property {(change: Partial<Draft>) => void} update
 * @property {() => void} next
 * @property {(to: string) => void} go
 */

/** @param {PageContext} props */
export function Wizard({ api, session, go }) {
  const [draft, setDraft] = useState(emptyDraft);
  const [step, setStep] = useState(0);
  const heading = useRef(/** @type {HTMLHeadingElement | null} */ (null));

  // Each step's heading takes the focus, so keyboard and screen reader users start there.
  useEffect(() => heading.current?.focus(), [step, !!draft.confirmed]);

  /** @param {Partial<Draft>} change */
  function update(change) {
    setDraft((d) => {
      const next = { ...d, ...change };
      // Rooms are chosen around a session: another session (or none) drops them.
      if ("slot" in change && change.slot?.slotId !== d.slot?.slotId) next.rooms = [];
      // A change before the hold lets the hold go (it expires; its seats are released).
      const beforeHold = Object.keys(change).some((k) =>
        ["site", "product", "date", "partySize", "types", "slot", "variant", "addons", "rooms", "customer", "participants", "staff"].includes(k),
      );
      if (beforeHold && d.hold) {
        release(d.hold);
        Object.assign(next, { hold: null, priced: null, codes: [], vouchers: [], waivers: null });
      }
      return next;
    });
  }

  /** Cancels a hold the wizard no longer uses, so its seats are free at once. */
  function release(/** @type {Schemas["AdminCreateResponse"]} */ hold) {
    ok(
      api.POST("/api/v1/bookings/{id}/cancel", {
        params: { path: { id: hold.bookingId } },
        body: { reason: "changed in the booking wizard" },
      }),
    ).catch(() => {});
  }

  function restart() {
    setDraft(emptyDraft());
    setStep(0);
  }

  if (!can(session, "admin:bookings:create")) {
    return html`<h1>${t("wizard.title")}</h1><p>${t("error.forbidden")}</p>`;
  }
  if (draft.confirmed) {
    return html`<${DoneStep} api=${api} draft=${draft} headingRef=${heading} restart=${restart} go=${go} />`;
  }
  const STEPS = stepsOf(draft);
  const Step = STEPS[step].component;
  return html`
    <div class="wizard">
      <h1>${t("wizard.title")}</h1>
      ${step === 0
        ? html`<p class="muted">${t("bookingGroups.fromWizard")}${" "}<a href="/admin/operations/booking-groups/new"
            onClick=${(/** @type {MouseEvent} */ e) => (e.preventDefault(), go("/admin/operations/booking-groups/new"))}>${t("bookingGroups.fromWizardLink")}</a></p>`
        : null}
      <nav aria-label=${t("wizard.steps")}>
        <ol class="steps">
          ${STEPS.map(
            (s, i) => html`<li class=${i === step ? "current" : i < step ? "done" : ""}>
              ${i < step
                ? html`<button type="button" class="link" onClick=${() => setStep(i)}>${t(s.title)}</button>`
                : html`<span aria-current=${i === step ? "step" : undefined}>${t(s.title)}</span>`}
            </li>`,
          )}
        </ol>
      </nav>
      <section class="step" aria-labelledby="step-title">
        <h2 id="step-title" tabindex="-1" ref=${heading}>${t(STEPS[step].title)}</h2>
        <${Step} api=${api} session=${session} draft=${draft} update=${update} go=${go}
          next=${() => setStep((s) => Math.min(s + 1, STEPS.length - 1))} />
      </section>
      ${step > 0
        ? html`<p><button type="button" onClick=${() => setStep(step - 1)}>${t("wizard.back")}</button></p>`
        : null}
    </div>
  `;
}
