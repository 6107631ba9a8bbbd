// The widget's first steps: the activity, the day, the party and a time with its price,
// then the customer's details, which make the hold.
import { html, useState, useEffect, useRef } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";
import { money, time, addDays, longDate } from "../shared/format.js";
import { TypeCountFields, fitCounts, typesBody, typesQuery } from "../shared/type-counts.js";

/** @typedef {import("./main.js").Choice} Choice */
/** @typedef {import("../shared/api.js").Schemas} Schemas */

/**
 * @typedef {object} StepProps
 * @property {import("../shared/api.js").Client} api
 * @property {Choice} choice
 * @property {(change: Partial<Choice>) => void} update
 */

/** A step's heading, focused when the step opens. */
function Heading({ children }) {
  const ref = useRef(/** @type {HTMLHeadingElement | null} */ (null));
  useEffect(() => ref.current?.focus(), []);
  return html`<h2 tabindex="-1" ref=${ref}>${children}</h2>`;
}

/** @param {{choice: Choice, update: StepProps["update"]}} props */
export function ChooseActivity({ choice, update }) {
  const site = choice.site;
  if (site.products.length === 0) return html`<p>${t("book.nothingOnSale")}</p>`;
  return html`
    <${Heading}>${t("book.chooseActivity")}<//>
    <ul class="cards">
      ${site.products.map(
        (p) => html`<li><button type="button" class="card" onClick=${() => update({ product: p, slot: null, types: {} })}>
          <strong>${p.name}</strong>
          ${p.description ? html`<span>${p.description}</span>` : null}
          <span class="muted">${t("book.activityFacts", {
            minutes: p.durationMins,
            price: money(p.basePrice, site.currency),
          })}</span>
        </button></li>`,
      )}
    </ul>
  `;
}

/** @param {StepProps} props */
export function ChooseTime({ api, choice, update }) {
  const site = choice.site;
  const product = /** @type {Schemas["PublicProduct"]} */ (choice.product);
  const today = new Intl.DateTimeFormat("en-CA", { timeZone: site.timezone }).format(new Date());
  const last = addDays(today, site.bookingPolicies.bookingHorizonDays);
  const [slots, setSlots] = useState(/** @type {Schemas["AvailabilitySlot"][] | null} */ (null));
  const [error, setError] = useState("");
  const maxParty = Math.min(product.capacity, site.bookingPolicies.maxPartySize);
  const types = choice.types ?? {};
  const typed = typesQuery(types);

  useEffect(() => {
    setSlots(null);
    setError("");
    // Only the latest question's answer is shown (an earlier one may arrive later).
    let current = true;
    ok(
      api.GET("/api/v1/availability", {
        params: {
          query: {
            site_id: site.siteId,
            product_id: product.id,
            date_from: choice.date,
            party_size: choice.partySize,
            ...(typed ? { participant_types: typed } : {}),
          },
        },
      }),
    )
      .then((a) => current && setSlots(a.slots))
      .catch((e) => current && setError(e.message));
    return () => {
      current = false;
    };
  }, [choice.date, choice.partySize, typed]);

  /** @param {string} date */
  const setDate = (date) => date >= today && date <= last && update({ date });

  return html`
    <${Heading}>${product.name}<//>
    <div class="row">
      <button type="button" aria-label=${t("day.previous")} disabled=${choice.date <= today}
        onClick=${() => setDate(addDays(choice.date, -1))}>‹</button>
      <label>${t("book.day")}
        <input type="date" value=${choice.date} min=${today} max=${last} required
          onChange=${(/** @type {any} */ e) => setDate(e.currentTarget.value)} />
      </label>
      <button type="button" aria-label=${t("day.next")} disabled=${choice.date >= last}
        onClick=${() => setDate(addDays(choice.date, 1))}>›</button>
      <label>${t("book.people")}
        <select value=${choice.partySize}
          onChange=${(/** @type {any} */ e) => {
            const partySize = Number(e.currentTarget.value);
            update({ partySize, types: fitCounts(types, partySize) });
          }}>
          ${Array.from({ length: Math.min(maxParty, 30) }, (_, i) => html`<option value=${i + 1}>${i + 1}</option>`)}
        </select>
      </label>
    </div>
    <${TypeCountFields} types=${product.participantTypes} partySize=${choice.partySize} counts=${types}
      currency=${site.currency} fullPrice=${product.basePrice} onChange=${(/** @type {any} */ c) => update({ types: c })} />
    <h3>${longDate(choice.date)}</h3>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    ${!slots && !error ? html`<p aria-busy="true">${t("common.loading")}</p>` : null}
    ${slots && slots.length === 0 ? html`<p>${t("book.noTimes")}</p>` : null}
    ${slots && slots.length > 0
      ? html`<ul class="times">${slots.map(
          (s) => html`<li><button type="button" class="time" onClick=${() => update({ slot: s })}>
            <strong>${time(s.startsAt, site.timezone)}</strong>
            <span>${money(s.pricingPreview.grandTotal, s.pricingPreview.currency)}</span>
            <span class="muted">${t("book.left", { n: s.availableCapacity })}</span>
          </button></li>`,
        )}</ul>`
      : null}
    <p><button type="button" class="link" onClick=${() => update({ product: null })}>${t("book.otherActivity")}</button></p>
  `;
}

/** @param {StepProps} props */
export function Details({ api, choice, update }) {
  const [customer, setCustomer] = useState(choice.customer);
  // An optional account: the booking is then the customer's, seen with their sign-in.
  const [account, setAccount] = useState({ wanted: false, password: "", terms: false });
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  // One key per attempt: a retry after a lost answer gets the same hold.
  const key = useRef(crypto.randomUUID());
  const site = choice.site;
  const slot = /** @type {Schemas["AvailabilitySlot"]} */ (choice.slot);
  const product = /** @type {Schemas["PublicProduct"]} */ (choice.product);
  // Who is coming, when the activity needs a waiver from each: the booker (unless they
  // say they are not taking part) and the others (rows left blank stay unnamed).
  const [withMe, setWithMe] = useState(true);
  const [people, setPeople] = useState(() =>
    Array.from({ length: choice.partySize }, () => ({ firstName: "", lastName: "", dateOfBirth: "" })),
  );
  const others = people.slice(0, withMe ? choice.partySize - 1 : choice.partySize);
  const [myFirst, ...myRest] = customer.name.trim().split(/\s+/);
  const me = withMe && myFirst && myRest.length > 0 ? [{ firstName: myFirst, lastName: myRest.join(" ") }] : [];
  const named = [
    ...me,
    ...others
      .filter((p) => p.firstName.trim() && p.lastName.trim())
      .map((p) => ({
        firstName: p.firstName.trim(),
        lastName: p.lastName.trim(),
        ...(p.dateOfBirth ? { dateOfBirth: p.dateOfBirth } : {}),
      })),
  ];

  /** @param {Event} e */
  async function hold(e) {
    e.preventDefault();
    setBusy(true);
    setError("");
    try {
      const token = account.wanted ? await signUp() : null;
      const held = await ok(
        api.POST("/api/v1/bookings/hold", {
          params: { header: { "Idempotency-Key": key.current } },
          ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
          body: {
            siteId: site.siteId,
            productId: product.id,
            slotId: slot.slotId,
            partySize: choice.partySize,
            customer: {
              name: customer.name.trim(),
              email: customer.email.trim(),
              ...(customer.phone.trim() ? { phone: customer.phone.trim() } : {}),
            },
            ...(product.requiresWaiver && named.length > 0 ? { participants: named } : {}),
            ...(typesBody(choice.types ?? {}).length > 0 ? { participantTypes: typesBody(choice.types ?? {}) } : {}),
          },
        }),
      );
      update({ customer, hold: held });
    } catch (err) {
      key.current = crypto.randomUUID();
      setError(err instanceof Error ? err.message : String(err));
      setBusy(false);
    }
  }

  /**
   * Makes the customer's account, or signs in to it when the email has one already:
   * the customer token the hold is made with.
   */
  async function signUp() {
    const [firstName, ...rest] = customer.name.trim().split(/\s+/);
    try {
      const made = await ok(
        api.POST("/api/v1/customers/register", {
          body: {
            email: customer.email.trim(),
            password: account.password,
            firstName,
            ...(rest.length > 0 ? { lastName: rest.join(" ") } : {}),
            ...(customer.phone.trim() ? { phone: customer.phone.trim() } : {}),
            // The form cannot be sent without the box ticked.
            termsAccepted: true,
            privacyPolicyAccepted: true,
          },
        }),
      );
      return made.access_token;
    } catch (e) {
      if (/** @type {any} */ (e).code !== "EMAIL_EXISTS") throw e;
      try {
        const signedIn = await ok(
          api.POST("/api/v1/customers/login", { body: { email: customer.email.trim(), password: account.password } }),
        );
        return signedIn.access_token;
      } catch {
        throw new Error(t("book.accountExists"));
      }
    }
  }

  /** @param {Partial<typeof customer>} change */
  const set = (change) => setCustomer({ ...customer, ...change });
  return html`
    <${Heading}>${t("book.details")}<//>
    <p>${product.name} · ${longDate(choice.date)} ${time(slot.startsAt, site.timezone)} ·
      ${t("book.peopleN", { n: choice.partySize })} · ${money(slot.pricingPreview.grandTotal, slot.pricingPreview.currency)}</p>
    <form class="fields" onSubmit=${hold}>
      <label>${t("wizard.customer.name")}
        <input value=${customer.name} required autocomplete="name" maxlength="200"
          onInput=${(/** @type {any} */ e) => set({ name: e.currentTarget.value })} /></label>
      <label>${t("wizard.customer.email")}
        <input type="email" value=${customer.email} required autocomplete="email"
          onInput=${(/** @type {any} */ e) => set({ email: e.currentTarget.value })} /></label>
      <label>${t("book.phoneOptional")}
        <input type="tel" value=${customer.phone} autocomplete="tel"
          onInput=${(/** @type {any} */ e) => set({ phone: e.currentTarget.value })} /></label>
      ${product.requiresWaiver
        ? html`<fieldset class="participants"><legend>${t("book.waiverNeeded")}</legend>
            <label class="check"><input type="checkbox" checked=${withMe}
              onChange=${(/** @type {any} */ e) => setWithMe(e.currentTarget.checked)} />${t("book.takingPart")}</label>
            ${others.map(
              (p, i) => html`<fieldset class="participant"><legend>${t("book.participant", { n: i + (withMe ? 2 : 1) })}</legend>
                <label>${t("waiver.firstName")}<input value=${p.firstName} maxlength="100"
                  onInput=${(/** @type {any} */ e) => setPeople(people.map((q, j) => (j === i ? { ...q, firstName: e.currentTarget.value } : q)))} /></label>
                <label>${t("waiver.lastName")}<input value=${p.lastName} maxlength="100"
                  onInput=${(/** @type {any} */ e) => setPeople(people.map((q, j) => (j === i ? { ...q, lastName: e.currentTarget.value } : q)))} /></label>
                <label>${t("waiver.birth")}<input type="date" value=${p.dateOfBirth}
                  onInput=${(/** @type {any} */ e) => setPeople(people.map((q, j) => (j === i ? { ...q, dateOfBirth: e.currentTarget.value } : q)))} /></label>
              </fieldset>`,
            )}
          </fieldset>`
        : null}
      <label class="check"><input type="checkbox" checked=${account.wanted}
        onChange=${(/** @type {any} */ e) => setAccount({ ...account, wanted: e.currentTarget.checked })} />${t("book.account")}</label>
      ${account.wanted
        ? html`<label>${t("book.password")}<input type="password" required minlength="8" autocomplete="new-password"
              value=${account.password} onInput=${(/** @type {any} */ e) => setAccount({ ...account, password: e.currentTarget.value })} /></label>
            <label class="check"><input type="checkbox" required checked=${account.terms}
              onChange=${(/** @type {any} */ e) => setAccount({ ...account, terms: e.currentTarget.checked })} />${t("book.terms")}</label>`
        : null}
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      <div class="buttons">
        <button type="submit" class="primary" disabled=${busy}>${t("book.hold")}</button>
        <button type="button" onClick=${() => update({ slot: null })}>${t("book.otherTime")}</button>
      </div>
    </form>
  `;
}
