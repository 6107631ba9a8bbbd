// The booking widget in a real Chromium, as a customer uses it: an activity, a day and a
// time, their details (the places are held), a card payment through the sandbox, then the
// link to the booking, from which they move it and cancel it with the refund.
import { test } from "node:test";
import assert from "node:assert/strict";
import { openPage, checkA11y, screenshot, suite, daysAheadInHelsinki } from "./harness.mjs";

const s = suite();
// Four days ahead: outside the demo's standard policy window (24 h to move or cancel
// online, 48 h for a full refund).
const day = daysAheadInHelsinki(4);

test("a customer books and pays by card in the widget, then moves and cancels from the link", async () => {
  // A phone-sized screen: the widget is used on phones.
  const { page, done } = await openPage(s.browser, { viewport: { width: 390, height: 844 } });
  const products = await s.api.call("GET", "/api/v1/admin/products");
  const product = products.items[0];
  await page.goto(`${s.server.base}/book/demo`);
  await page.getByRole("heading", { name: "Choose an activity" }).waitFor();
  await checkA11y(page, "the widget's activities");
  await page.getByRole("button", { name: new RegExp(`^${product.name}`) }).click();

  await page.getByLabel("Day", { exact: true }).fill(day);
  await page.getByRole("combobox", { name: /People/ }).selectOption("2");
  const times = page.locator("button.time");
  await times.first().waitFor();
  await checkA11y(page, "the widget's times");
  await screenshot(page, "widget");
  await times.first().click();

  await page.getByRole("heading", { name: "Your details" }).waitFor();
  await page.getByLabel("Name", { exact: true }).fill("Hedy Lamarr");
  await page.getByLabel("Email", { exact: true }).fill("hedy@example.com");
  await page.getByRole("button", { name: "Hold my places" }).click();

  await page.getByRole("heading", { name: "Pay and confirm" }).waitFor();
  await page.getByText("Your places are held for").waitFor();
  await checkA11y(page, "the widget's checkout");
  await page.getByLabel("Pay now by card").check();
  await page.getByRole("button", { name: /^Pay / }).click();
  await page.getByLabel("Card number").fill("4000 0000 0000 0002");
  await page.getByRole("button", { name: /^Pay / }).click();
  // A declined card says so, and another card can be tried.
  await page.getByRole("alert").filter({ hasText: "declined" }).waitFor();
  await page.getByLabel("Card number").fill("4242 4242 4242 4242");
  await page.getByRole("button", { name: /^Pay / }).click();

  await page.getByRole("heading", { name: "You are booked!" }).waitFor({ timeout: 20_000 });
  const reference = (await page.getByTestId("reference").innerText()).trim();
  await checkA11y(page, "the widget's confirmation");
  const found = await s.api.call("GET", `/api/v1/admin/bookings?customerEmail=hedy@example.com`);
  assert.equal(found.bookings[0].bookingReference, reference);
  assert.equal(found.bookings[0].status, "paid");

  await page.getByTestId("manage-link").click();
  await page.getByRole("heading", { name: `Booking ${reference}` }).waitFor();
  await page.getByTestId("status").filter({ hasText: "Paid" }).waitFor();
  await checkA11y(page, "the customer's booking");
  const before = await page.getByTestId("when").innerText();
  await page.getByRole("button", { name: "Move to another time" }).click();
  await page.locator("button.time").first().click();
  await page.getByRole("status").filter({ hasText: "Moved to" }).waitFor({ timeout: 5000 }).catch(async (e) => {
    throw new Error(`${e.message}\n${await page.locator("main").innerText()}`);
  });
  assert.notEqual(await page.getByTestId("when").innerText(), before);

  await page.getByRole("button", { name: "Cancel the booking" }).click();
  await page.getByRole("button", { name: "Yes, cancel it" }).click();
  await page.getByRole("status").filter({ hasText: "cancelled" }).waitFor();
  await page.getByTestId("status").filter({ hasText: "Cancelled" }).waitFor();
  const after = await s.api.call("GET", `/api/v1/admin/bookings/${found.bookings[0].bookingId}`);
  assert.equal(after.status, "canceled");
  // More than 48 hours ahead, the standard policy refunds it all to the card.
  assert.match(await page.getByRole("status").innerText(), /will be refunded to your card/);
  const card = after.payments.find((/** @type {any} */ p) => p.method === "cardpay");
  assert.ok(card, JSON.stringify(after.payments));
  assert.equal(card.refundedAmount, card.amount, "refunded in full");
  await done();
});

test("an unknown venue says so", async () => {
  const { page, done } = await openPage(s.browser);
  await page.goto(`${s.server.base}/book/nobody`);
  await page.getByText("This booking page does not exist").waitFor();
  // The message is the page's own, not an error of the page.
  await page.locator(".error").evaluate((el) => el.classList.remove("error"));
  await done();
});

test("a customer who asks for an account gets the booking in their account", async () => {
  const { page, done } = await openPage(s.browser);
  const products = await s.api.call("GET", "/api/v1/admin/products");
  await page.goto(`${s.server.base}/book/demo`);
  await page.getByRole("button", { name: new RegExp(`^${products.items[0].name}`) }).click();
  await page.getByLabel("Day", { exact: true }).fill(day);
  await page.locator("button.time").nth(3).click();
  await page.getByLabel("Name", { exact: true }).fill("Frances Allen");
  await page.getByLabel("Email", { exact: true }).fill("frances@example.com");
  await page.getByLabel("Create an account").check();
  await page.getByLabel("Password").fill("frances-password-1");
  await page.getByLabel("I accept the terms").check();
  await checkA11y(page, "the widget's details with an account");
  await page.getByRole("button", { name: "Hold my places" }).click();
  await page.getByRole("heading", { name: "Pay and confirm" }).waitFor();
  await page.getByLabel("Pay on arrival").check();
  await page.getByRole("button", { name: "Confirm the booking" }).click();
  await page.getByRole("heading", { name: "You are booked!" }).waitFor();
  const reference = (await page.getByTestId("reference").innerText()).trim();

  const login = await fetch(`${s.server.base}/api/v1/customers/login`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-tenant-id": "demo" },
    body: JSON.stringify({ email: "frances@example.com", password: "frances-password-1" }),
  }).then((r) => r.json());
  const mine = await fetch(`${s.server.base}/api/v1/customers/me/bookings`, {
    headers: { "x-tenant-id": "demo", authorization: `Bearer ${login.access_token}` },
  }).then((r) => r.json());
  assert.ok(JSON.stringify(mine).includes(reference), JSON.stringify(mine));
  await done();
});

test("a customer takes the party room after the escape room in the widget and changes its length", async () => {
  const { page, done } = await openPage(s.browser, { viewport: { width: 390, height: 844 } });
  await page.goto(`${s.server.base}/book/demo`);
  await page.getByRole("button", { name: /^The Lost Temple escape room/ }).click();
  await page.getByLabel("Day", { exact: true }).fill(day);
  await page.getByRole("combobox", { name: /People/ }).selectOption("4");
  await page.locator("button.time").nth(1).click();
  await page.getByLabel("Name", { exact: true }).fill("Grace Hopper");
  await page.getByLabel("Email", { exact: true }).fill("grace@example.com");
  await page.getByRole("button", { name: "Hold my places" }).click();
  await page.getByRole("heading", { name: "Pay and confirm" }).waitFor();

  const found = await s.api.call("GET", `/api/v1/admin/bookings?customerEmail=grace@example.com`);
  const id = found.bookings[0].bookingId;
  const total = async () => (await s.api.call("GET", `/api/v1/admin/bookings/${id}`)).price.total;
  const game = await total();
  const price = page.getByTestId("price");
  const room = page.locator('fieldset[data-room="Party room after the game"]');
  await room.getByLabel("Not needed").waitFor();
  await checkA11y(page, "the widget's rooms");
  // An hour in the room for four: 30.00 + 4 × 5.00 on top of the game.
  await room.getByLabel(/^After the activity,/).first().check();
  await price.locator("strong").getByText(new RegExp(String(game + 50).replace(".", "[.,]"))).waitFor();
  const held = await s.api.call("GET", `/api/v1/bookings/${id}/resource-addons`);
  assert.equal(held.addons.length, 1, JSON.stringify(held));
  assert.equal(held.addons[0].status, "HELD");
  assert.equal(held.addons[0].durationMins, 60);
  // Ninety minutes instead: the hour is given back in the same step.
  await room.getByLabel(/^After the activity,/).nth(1).check();
  for (let i = 0; i < 50; i++) {
    const now = await s.api.call("GET", `/api/v1/bookings/${id}/resource-addons`);
    if (now.addons.length === 1 && now.addons[0].durationMins === 90) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const longer = await s.api.call("GET", `/api/v1/bookings/${id}/resource-addons`);
  assert.deepEqual(longer.addons.map((/** @type {any} */ a) => a.durationMins), [90], JSON.stringify(longer));

  await page.getByLabel("Pay on arrival").check();
  await page.getByRole("button", { name: "Confirm the booking" }).click();
  await page.getByRole("heading", { name: "You are booked!" }).waitFor();
  const booked = await s.api.call("GET", `/api/v1/bookings/${id}/resource-addons`);
  assert.equal(booked.addons[0].status, "CONFIRMED");
  assert.equal(await total(), game + 50);
  await done();
});
