// A venue's own card account in the widget: the provider's browser library (here
// localstripe's stand-in for Stripe.js, served by the Stripe-compatible test server at
// TEST_CARDPAY_URL, which scripts/browser-tests.sh starts) is loaded under the page's
// content security policy, started with the account's publishable key, draws its card
// fields in the page and confirms the payment's client secret, 3-D Secure included; the
// provider's signed webhook then makes the booking paid.
import { test } from "node:test";
import assert from "node:assert/strict";
import { openPage, suite, daysAheadInHelsinki } from "./harness.mjs";

const provider = process.env.TEST_CARDPAY_URL ?? "";
const WEBHOOK_SECRET = "whsec_kairos_pages";

const s = suite({
  env: {
    KAIROS_CARDPAY_API_BASE: provider,
    KAIROS_CARDPAY_JS_URL: `${provider}/js.stripe.com/v3/`,
  },
  async setup({ api }) {
    assert.ok(provider, "set TEST_CARDPAY_URL (scripts/localstripe.sh start)");
    await api.call("PUT", "/api/v1/admin/payments/credentials/cardpay", {
      secretKey: "sk_test_kairos_pages",
      webhookSecret: WEBHOOK_SECRET,
      publishableKey: "pk_test_kairos_pages",
      sandbox: false,
    });
  },
});

/**
 * Tells the provider to send its events to this server, signed with the account's secret.
 * @param {string} base
 */
async function registerWebhook(base) {
  const form = new URLSearchParams({ url: `${base}/payments/cardpay/webhook`, secret: WEBHOOK_SECRET });
  form.append("events[]", "payment_intent.succeeded");
  form.append("events[]", "payment_intent.payment_failed");
  const res = await fetch(`${provider}/_config/webhooks/kairos-pages-${Date.now()}`, { method: "POST", body: form });
  assert.ok(res.ok, `webhook registration answered ${res.status}`);
}

/**
 * The provider's own API, as the account's secret key.
 * @param {string} path
 * @param {Record<string, string>} fields
 */
async function providerCall(path, fields) {
  const res = await fetch(`${provider}${path}`, {
    method: "POST",
    headers: { authorization: "Bearer sk_test_kairos_pages" },
    body: new URLSearchParams(fields),
  });
  const body = await res.json();
  assert.ok(res.ok, `${path} answered ${res.status}: ${JSON.stringify(body)}`);
  return body;
}

test("a customer pays in the card provider's own card element, with 3-D Secure", async () => {
  await registerWebhook(s.server.base);
  const { page, done } = await openPage(s.browser, { viewport: { width: 390, height: 844 } });
  const products = await s.api.call("GET", "/api/v1/admin/products");
  await page.goto(`${s.server.base}/book/demo`);
  await page.getByRole("button", { name: new RegExp(`^${products.items[0].name}`) }).click();
  await page.getByLabel("Day", { exact: true }).fill(daysAheadInHelsinki(5));
  await page.locator("button.time").first().click();
  await page.getByLabel("Name", { exact: true }).fill("Katherine Johnson");
  await page.getByLabel("Email", { exact: true }).fill("katherine@example.com");
  await page.getByRole("button", { name: "Hold my places" }).click();
  await page.getByRole("heading", { name: "Pay and confirm" }).waitFor();
  await page.getByLabel("Pay now by card").check();
  const confirmed = page.waitForResponse((r) => r.url().endsWith("/confirm") && r.request().method() === "POST");
  await page.getByRole("button", { name: /^Pay / }).click();
  const payment = (await (await confirmed).json()).payment;
  assert.equal(payment.publishableKey, "pk_test_kairos_pages");
  assert.equal(payment.sandboxConfirmUrl, null);

  // The provider's fields, drawn by its library inside the page's card form.
  const form = page.getByTestId("provider-card");
  await form.locator("input[placeholder=number]").fill("4000002500003155");
  await form.locator("input[placeholder=exp_month]").fill("12");
  await form.locator("input[placeholder=exp_year]").fill("30");
  await form.locator("input[placeholder=cvc]").fill("123");
  await form.locator("input[placeholder=postal_code]").fill("00100");

  // localstripe's stand-in only authenticates: it does not send the element's card to
  // the intent as Stripe.js does. The provider is given the card here, as Stripe.js
  // would give it; the card needs 3-D Secure, which the library then asks for.
  const method = await providerCall("/v1/payment_methods", {
    type: "card",
    "card[number]": "4000002500003155",
    "card[exp_month]": "12",
    "card[exp_year]": "2030",
    "card[cvc]": "123",
  });
  await providerCall(`/v1/payment_intents/${payment.paymentIntentId}`, { payment_method: method.id });
  await providerCall(`/v1/payment_intents/${payment.paymentIntentId}/confirm`, {});

  await form.getByRole("button", { name: /^Pay / }).click();
  await page.getByRole("button", { name: "Complete authentication" }).click();
  await page.getByRole("heading", { name: "You are booked!" }).waitFor({ timeout: 20_000 });
  const found = await s.api.call("GET", "/api/v1/admin/bookings?customerEmail=katherine@example.com");
  assert.equal(found.bookings[0].status, "paid");
  await done();
});

test("a failed authentication says the payment was not taken, and the booking waits", async () => {
  await registerWebhook(s.server.base);
  const { page, done } = await openPage(s.browser);
  const products = await s.api.call("GET", "/api/v1/admin/products");
  await page.goto(`${s.server.base}/book/demo`);
  await page.getByRole("button", { name: new RegExp(`^${products.items[0].name}`) }).click();
  await page.getByLabel("Day", { exact: true }).fill(daysAheadInHelsinki(5));
  await page.locator("button.time").nth(2).click();
  await page.getByLabel("Name", { exact: true }).fill("Dorothy Vaughan");
  await page.getByLabel("Email", { exact: true }).fill("dorothy@example.com");
  await page.getByRole("button", { name: "Hold my places" }).click();
  await page.getByLabel("Pay now by card").check();
  const confirmed = page.waitForResponse((r) => r.url().endsWith("/confirm") && r.request().method() === "POST");
  await page.getByRole("button", { name: /^Pay / }).click();
  const payment = (await (await confirmed).json()).payment;
  const form = page.getByTestId("provider-card");
  await form.locator("input[placeholder=number]").waitFor();
  // Paying before the provider has the card: the library's answer is shown in words.
  await form.getByRole("button", { name: /^Pay / }).click();
  await page.getByRole("button", { name: "Fail authentication" }).click();
  const alert = form.getByRole("alert");
  await alert.filter({ hasText: "The payment was not taken" }).waitFor();
  assert.equal(payment.publishableKey, "pk_test_kairos_pages");
  assert.notEqual((await bookingOf("dorothy@example.com")).status, "paid");
  // The message is the page's answer to the customer, not an error of the page.
  await alert.evaluate((el) => el.classList.remove("error"));
  await done();
});

/** @param {string} email */
async function bookingOf(email) {
  const found = await s.api.call("GET", `/api/v1/admin/bookings?customerEmail=${email}`);
  return found.bookings[0];
}
