// Paying by card through the venue's own card account: the provider's card element
// (Stripe.js, from the payment's `providerScriptUrl`, started with its `publishableKey`)
// takes the card in the provider's own fields, so the card number never reaches Kairos,
// and confirms the payment's `clientSecret` with it, 3-D Secure included. The provider
// then tells Kairos by its signed event, and the booking becomes paid.
import { html, useState, useEffect, useRef } from "./ui.js";
import { t } from "./i18n.js";

/**
 * What the pages use of Stripe.js.
 * @typedef {{mount: (el: HTMLElement) => void, destroy: () => void}} CardElement
 * @typedef {{message?: string} | undefined} ProviderError
 * @typedef {{
 *   elements: () => {create: (type: "card") => CardElement},
 *   confirmCardPayment: (secret: string, data?: object) => Promise<{error?: ProviderError}>,
 * }} Provider
 */

/** @type {Map<string, Promise<void>>} */
const scripts = new Map();

/**
 * Loads the provider's library once per page.
 * @param {string} src
 */
function load(src) {
  let loading = scripts.get(src);
  if (!loading) {
    loading = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = src;
      script.onload = () => resolve();
      script.onerror = () => {
        scripts.delete(src);
        script.remove();
        reject(new Error(src));
      };
      document.head.append(script);
    });
    scripts.set(src, loading);
  }
  return loading;
}

/**
 * The card form of a payment that answered `publishableKey` and `providerScriptUrl`.
 * @param {object} props
 * @param {{paymentId: string, clientSecret?: string | null, publishableKey?: string | null,
 *   providerScriptUrl?: string | null, providerStatus?: string | null}} props.payment
 * @param {() => void} props.onPaid the provider accepted the card (the booking becomes paid shortly)
 * @param {string} props.amountText
 * @param {{name?: string, email?: string}} [props.billing] the customer, for the provider's records
 */
export function ProviderCard({ payment, onPaid, amountText, billing }) {
  const host = useRef(/** @type {HTMLDivElement | null} */ (null));
  const [ready, setReady] = useState(
    /** @type {{provider: Provider, card: CardElement} | null} */ (null),
  );
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    /** @type {CardElement | null} */
    let card = null;
    let gone = false;
    load(payment.providerScriptUrl ?? "")
      .then(() => {
        const start = /** @type {any} */ (window).Stripe;
        if (gone || typeof start !== "function" || !host.current) return;
        /** @type {Provider} */
        const provider = start(payment.publishableKey);
        card = provider.elements().create("card");
        card.mount(host.current);
        setReady({ provider, card });
      })
      .catch(() => setError(t("card.providerUnavailable")));
    return () => {
      gone = true;
      card?.destroy();
    };
  }, [payment.paymentId]);

  /** @param {Event} e */
  async function pay(e) {
    e.preventDefault();
    if (!ready) return;
    setBusy(true);
    setError("");
    try {
      // An intent already holding a card only needs the customer's authentication.
      const data =
        payment.providerStatus === "requires_action"
          ? undefined
          : { payment_method: { card: ready.card, billing_details: billing ?? {} } };
      const result = await ready.provider.confirmCardPayment(payment.clientSecret ?? "", data);
      if (!result.error) {
        onPaid();
        return;
      }
      setError(t("card.notTaken", { reason: result.error.message ?? t("card.declined") }));
    } catch {
      setError(t("error.network"));
    }
    setBusy(false);
  }

  return html`
    <form class="card-form" onSubmit=${pay} aria-labelledby="card-title" data-testid="provider-card">
      <h3 id="card-title">${t("card.title")}</h3>
      <div class="card-element" ref=${host} role="group" aria-label=${t("card.details")}
        aria-busy=${ready ? "false" : "true"}></div>
      ${ready ? null : html`<p class="muted">${t("card.loading")}</p>`}
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      <button type="submit" class="primary" disabled=${busy || !ready}>${t("card.pay", { amount: amountText })}</button>
    </form>
  `;
}
