// Paying by card in the page. On the demo (and wherever the venue's card provider is the
// built-in sandbox) the answer of a cardpay confirmation carries `sandboxConfirmUrl`: this
// form stands in for the provider's card element and posts the card to the sandbox, which
// speaks Stripe's protocol; no real money moves. The provider then tells Kairos by its
// signed event, and the booking becomes paid.
import { html, useState, useEffect, useRef } from "./ui.js";
import { t } from "./i18n.js";

/**
 * Test cards of the sandbox (Stripe's test numbers) and the payment method each stands for.
 * @type {Record<string, string>}
 */
const SANDBOX_CARDS = {
  "4242424242424242": "pm_card_visa",
  "5555555555554444": "pm_card_mastercard",
  "4000000000000002": "pm_card_chargeDeclined",
  "4000000000009995": "pm_card_chargeDeclinedInsufficientFunds",
};

/** @param {string} digits */
function luhn(digits) {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return digits.length >= 12 && sum % 10 === 0;
}

/**
 * The card form of a payment that answered `sandboxConfirmUrl`.
 * @param {object} props
 * @param {{clientSecret?: string | null, sandboxConfirmUrl?: string | null, amount: number, currency: string}} props.payment
 * @param {() => void} props.onPaid the card was accepted (the booking becomes paid shortly)
 * @param {string} props.amountText
 */
export function SandboxCard({ payment, onPaid, amountText }) {
  const [number, setNumber] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const input = useRef(/** @type {HTMLInputElement | null} */ (null));
  useEffect(() => input.current?.focus(), []);

  /** @param {Event} e */
  async function pay(e) {
    e.preventDefault();
    const digits = number.replace(/\D/g, "");
    if (!luhn(digits)) {
      setError(t("card.invalid"));
      return;
    }
    setBusy(true);
    setError("");
    try {
      const res = await fetch(payment.sandboxConfirmUrl ?? "", {
        method: "POST",
        body: new URLSearchParams({
          client_secret: payment.clientSecret ?? "",
          payment_method: SANDBOX_CARDS[digits] ?? "pm_card_visa",
        }),
      });
      if (res.ok) {
        onPaid();
        return;
      }
      const answer = await res.json().catch(() => ({}));
      setError(answer?.error?.message ?? t("card.declined"));
    } catch {
      setError(t("error.network"));
    }
    setBusy(false);
  }

  return html`
    <form class="card-form" onSubmit=${pay} aria-labelledby="card-title">
      <h3 id="card-title">${t("card.title")}</h3>
      <p class="muted">${t("card.sandbox")}</p>
      <label>
        ${t("card.number")}
        <input ref=${input} inputmode="numeric" autocomplete="cc-number" value=${number} required
          onInput=${(/** @type {any} */ e) => setNumber(e.currentTarget.value)} />
      </label>
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      <button type="submit" class="primary" disabled=${busy}>${t("card.pay", { amount: amountText })}</button>
    </form>
  `;
}
