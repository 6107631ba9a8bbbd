// The booking wizard end to end in a real Chromium: a phone booking with a promotion
// code, paid by card through the sandbox; and one made with the keyboard only.
import { test } from "node:test";
import assert from "node:assert/strict";
import { openPage, checkA11y, screenshot, signIn, suite, tomorrowInHelsinki } from "./harness.mjs";

const s = suite({
  setup: async ({ api }) => {
    await api.call("POST", "/api/v1/admin/promotions", {
      code: "PHONE10",
      name: "Phone 10 %",
      type: "percentage",
      discount_value: 10,
      starts_at: "2026-01-01T00:00:00Z",
      is_stackable: true,
    });
  },
});
const day = tomorrowInHelsinki();

test("the wizard books with a promotion code and a card payment", async () => {
  const { page, done } = await openPage(s.browser);
  const products = await s.api.call("GET", "/api/v1/admin/products");
  const product = products.items[0];
  await signIn(page, s.server.base);
  await page.getByRole("link", { name: "New booking" }).click();
  const step = page.locator("section.step");
  const next = () => step.getByRole("button", { name: "Next", exact: true }).click();

  await step.getByRole("heading", { name: "Site" }).waitFor();
  await checkA11y(page, "the wizard's first step");
  await step.getByLabel("Helsinki Adventure Centre").check();
  await next();

  await step.getByRole("heading", { name: "Activity" }).waitFor();
  await step.getByLabel(product.name).check();
  await next();

  await step.getByRole("heading", { name: "Date and time" }).waitFor();
  await step.getByLabel("Date", { exact: true }).fill(day);
  await step.getByLabel("People", { exact: true }).fill("2");
  await step.getByLabel("People", { exact: true }).blur();
  // One of the two is a child, at the child's price.
  assert.equal(product.participantTypes[0].name, "Child (under 12)");
  await step.getByLabel(/^Child \(under 12\)/).fill("1");
  await step.getByLabel(/^Child \(under 12\)/).blur();
  await step.getByText("The other 1 at the full price of €18.00 each").waitFor();
  const firstTime = step.locator('input[name="slot"]').first();
  await step.locator(".slots").getByText("€30.00").first().waitFor();
  await firstTime.check();
  await checkA11y(page, "the wizard's times");
  await screenshot(page, "wizard");
  await next();

  await step.getByRole("heading", { name: "Option" }).waitFor();
  await next();
  await step.getByRole("heading", { name: "Extras" }).waitFor();
  await next();

  await step.getByRole("heading", { name: "Customer" }).waitFor();
  await step.getByLabel("Name", { exact: true }).fill("Katherine Johnson");
  await step.getByLabel("Email", { exact: true }).fill("katherine@example.com");
  await step.getByLabel("Phone", { exact: true }).fill("+358 40 555 0101");
  await step.getByLabel("Special requests", { exact: true }).fill("Birthday: a candle on the cake, please");
  await step.getByLabel("The customer accepted the terms").check();
  await step.getByLabel("Internal notes").fill("Called from the office line");
  await checkA11y(page, "the wizard's customer step");
  await next();

  await step.getByRole("heading", { name: "Participants" }).waitFor();
  assert.equal(await step.getByLabel("First name", { exact: true }).first().inputValue(), "Katherine");
  assert.equal(await step.getByLabel("Last name", { exact: true }).first().inputValue(), "Johnson");
  await next();

  await step.getByRole("heading", { name: "Codes and vouchers" }).waitFor();
  await step.getByText("The places are held for").waitFor();
  const total = async () => (await step.getByTestId("price").locator("dd").last().innerText()).trim();
  await step.getByTestId("price").getByText("of which Child (under 12) × 1").waitFor();
  const before = await total();
  await step.getByLabel("Promotion code", { exact: true }).fill("phone10");
  await step.getByRole("button", { name: "Apply" }).first().click();
  await step.getByText("Applied: PHONE10").waitFor();
  await step.getByText("Discount").waitFor();
  assert.notEqual(await total(), before, "the code changed the price");
  await checkA11y(page, "the wizard's codes step");
  await next();

  // Bouldering needs waivers: skipped here, with the reason noted on the booking.
  await step.getByRole("heading", { name: "Waivers" }).waitFor();
  await step.getByLabel("Skip for now, with a reason").check();
  await step.getByLabel(/Why/).fill("Signs at the desk on arrival");
  await checkA11y(page, "the wizard's waivers step");
  await next();

  await step.getByRole("heading", { name: "Review and pay" }).waitFor();
  await step.getByLabel("Card now").check();
  await step.getByRole("button", { name: "Confirm the booking" }).click();

  const heading = page.getByRole("heading", { name: /^Booked: / });
  await heading.waitFor();
  const reference = (await heading.innerText()).replace("Booked: ", "").trim();
  await page.getByLabel("Card number", { exact: true }).fill("4242 4242 4242 4242");
  await checkA11y(page, "the card form");
  await page.getByRole("button", { name: /^Pay / }).click();
  await page.getByTestId("booking-status").filter({ hasText: "Status: Paid" }).waitFor({ timeout: 20_000 });

  const found = await s.api.call("GET", `/api/v1/admin/bookings?customerEmail=katherine@example.com`);
  const item = found.bookings.find((/** @type {any} */ b) => b.bookingReference === reference);
  assert.ok(item, "the booking is found by staff");
  assert.equal(item.status, "paid");
  const detail = await s.api.call("GET", `/api/v1/admin/bookings/${item.bookingId}`);
  assert.ok(detail.price.promotionDiscount > 0, "the promotion discounted it");
  assert.equal(detail.createdReason, "phone_booking");
  assert.ok(detail.termsAcceptedAt, "terms accepted on the customer's behalf");
  assert.ok(
    detail.notes.some((/** @type {any} */ n) => n.content.includes("Signs at the desk on arrival")),
    "the reason for skipping the waivers is noted",
  );
  assert.equal(detail.adminNotes, "Called from the office line");
  assert.equal(detail.notes[0].content, "Birthday: a candle on the cake, please");
  assert.equal(detail.participants[0].firstName, "Katherine");
  await done();
});

/**
 * Presses Tab until the focused element's label or text matches, then returns; fails when
 * it is not reachable by Tab within 60 presses.
 * @param {import("playwright-core").Page} page
 * @param {RegExp} name
 */
async function tabTo(page, name) {
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press("Tab");
    const focused = await page.evaluate(() => {
      const el = /** @type {HTMLElement | null} */ (document.activeElement);
      if (!el) return "";
      const label = el.closest("label")?.innerText ?? "";
      return `${label} ${el.innerText ?? ""} ${el.getAttribute("aria-label") ?? ""}`.trim();
    });
    if (name.test(focused)) return;
  }
  const where = await page.locator("#step-title").innerText().catch(() => "?");
  throw new Error(`${name} cannot be reached with Tab (step: ${where})`);
}

/**
 * Waits until the step's Next button is enabled (a choice made with the keyboard takes a
 * render to enable it; Tab skips a disabled button).
 * @param {import("playwright-core").Page} page
 */
async function nextEnabled(page) {
  await page.waitForFunction(() =>
    [...document.querySelectorAll("section.step button")].some((b) => b.textContent?.trim() === "Next" && !(/** @type {HTMLButtonElement} */ (b).disabled)),
  );
}

test("the wizard can be done with the keyboard alone", async () => {
  const { page, done } = await openPage(s.browser);
  await signIn(page, s.server.base);
  await page.goto(`${s.server.base}/admin/operations/bookings/new`);
  const step = page.locator("section.step");
  // Each step's heading takes the focus when the step opens; Tab starts from there.
  const heading = async (/** @type {string} */ name) => {
    await step.getByRole("heading", { name }).waitFor();
    await page.waitForFunction(
      (n) => document.activeElement?.id === "step-title" && document.activeElement.textContent === n,
      name,
    );
  };
  await heading("Site");
  // The choices load after the heading takes the focus: Tab only once they are there.
  await step.locator('input[name="site"]').first().waitFor();
  await tabTo(page, /Helsinki Adventure Centre/);
  await page.keyboard.press("Space");
  await nextEnabled(page);
  await tabTo(page, /^Next$/);
  await page.keyboard.press("Enter");
  await heading("Activity");
  await step.locator('input[name="product"]').first().waitFor();
  await tabTo(page, /Bouldering session/);
  await page.keyboard.press("Space");
  await nextEnabled(page);
  await tabTo(page, /^Next$/);
  await page.keyboard.press("Enter");
  await heading("Date and time");
  // Tomorrow: one press of "Next day" from today.
  await tabTo(page, /^Next day$/);
  await page.keyboard.press("Enter");
  await page.waitForFunction(
    (d) => /** @type {HTMLInputElement | null} */ (document.querySelector('section.step input[type="date"]'))?.value === d,
    day,
  );
  await step.locator('[aria-busy="true"]').waitFor({ state: "detached" });
  await tabTo(page, /places free/);
  await page.keyboard.press("ArrowRight");
  await step.locator('input[name="slot"]:checked').waitFor();
  await nextEnabled(page);
  await tabTo(page, /^Next$/);
  await page.keyboard.press("Enter");
  for (const name of ["Option", "Extras"]) {
    await heading(name);
    await nextEnabled(page);
  await tabTo(page, /^Next$/);
    await page.keyboard.press("Enter");
  }
  await heading("Customer");
  await tabTo(page, /^Name/);
  await page.keyboard.type("Mary Jackson");
  await tabTo(page, /^Email/);
  await page.keyboard.type("mary@example.com");
  await nextEnabled(page);
  await tabTo(page, /^Next$/);
  await page.keyboard.press("Enter");
  await heading("Participants");
  await tabTo(page, /^Skip participants$/);
  await page.keyboard.press("Enter");
  await heading("Codes and vouchers");
  await step.getByText("The places are held for").waitFor();
  await nextEnabled(page);
  await tabTo(page, /^Next$/);
  await page.keyboard.press("Enter");
  // The signing link is emailed to the customer (the first choice).
  await heading("Waivers");
  await tabTo(page, /^Next$/);
  await page.keyboard.press("Enter");
  await heading("Review and pay");
  await tabTo(page, /^Confirm the booking$/);
  await page.keyboard.press("Enter");
  await page.getByTestId("booking-status").filter({ hasText: "Pay on arrival" }).waitFor();
  const found = await s.api.call("GET", `/api/v1/admin/bookings?customerEmail=mary@example.com`);
  assert.equal(found.bookings.length, 1);
  assert.equal(found.bookings[0].status, "tentative");
  const waivers = await s.api.call("GET", `/api/v1/admin/waivers/booking/${found.bookings[0].bookingId}`);
  assert.ok(waivers.requiredWaivers[0].reminderSent, "the signing link went to the customer");
  await done();
});

test("the wizard adds the party room after the game to the booking", async () => {
  const { page, done } = await openPage(s.browser);
  await signIn(page, s.server.base);
  await page.goto(`${s.server.base}/admin/operations/bookings/new`);
  const step = page.locator("section.step");
  const next = () => step.getByRole("button", { name: "Next", exact: true }).click();
  await step.getByLabel("Helsinki Adventure Centre").check();
  await next();
  await step.getByLabel("The Lost Temple escape room").check();
  await next();
  await step.getByRole("heading", { name: "Date and time" }).waitFor();
  await step.getByLabel("Date", { exact: true }).fill(day);
  await step.getByLabel("People", { exact: true }).fill("4");
  await step.getByLabel("People", { exact: true }).blur();
  await step.locator('input[name="slot"]').first().check();
  await next();
  await step.getByRole("heading", { name: "Option" }).waitFor();
  await next();

  // The room is offered after the chosen game, priced; the ordinary extras are not it.
  await step.getByRole("heading", { name: "Extras" }).waitFor();
  const room = step.locator('fieldset[data-room="Party room after the game"]');
  await room.getByLabel("Not needed").waitFor();
  const after = room.getByLabel(/^After the activity,/).first();
  await after.check();
  // Another session drops the choice (rooms are chosen around a session).
  await page.locator("ol.steps").getByRole("button", { name: "Date and time" }).click();
  await step.locator('input[name="slot"]').nth(1).check();
  await next();
  await step.getByRole("heading", { name: "Option" }).waitFor();
  await next();
  await step.getByRole("heading", { name: "Extras" }).waitFor();
  await room.getByLabel("Not needed").waitFor();
  assert.equal(await room.getByLabel("Not needed").isChecked(), true);
  await after.check();
  const chosen = (await after.locator("xpath=..").innerText()).trim();
  await checkA11y(page, "the wizard's rooms");
  await next();

  await step.getByRole("heading", { name: "Customer" }).waitFor();
  await step.getByLabel("Name", { exact: true }).fill("Dorothy Vaughan");
  await step.getByLabel("Email", { exact: true }).fill("dorothy@example.com");
  await next();
  await step.getByRole("heading", { name: "Participants" }).waitFor();
  await step.getByRole("button", { name: "Skip participants" }).click();
  await step.getByRole("heading", { name: "Codes and vouchers" }).waitFor();
  await step.getByText("The places are held for").waitFor();
  await step.getByTestId("price").getByText("Party room after the game").waitFor();
  await next();
  await step.getByRole("heading", { name: "Review and pay" }).waitFor();
  await step.getByRole("button", { name: "Confirm the booking" }).click();
  await page.getByTestId("booking-status").filter({ hasText: "Pay on arrival" }).waitFor();

  const found = await s.api.call("GET", `/api/v1/admin/bookings?customerEmail=dorothy@example.com`);
  assert.equal(found.bookings.length, 1);
  const id = found.bookings[0].bookingId;
  const addons = await s.api.call("GET", `/api/v1/bookings/${id}/resource-addons`);
  assert.equal(addons.addons.length, 1, JSON.stringify(addons));
  assert.equal(addons.addons[0].addonName, "Party room after the game");
  assert.equal(addons.addons[0].position, "AFTER");
  assert.ok(chosen.includes("After the activity"), chosen);
  // The booking costs the game for four and the room on top.
  const detail = await s.api.call("GET", `/api/v1/admin/bookings/${id}`);
  const game = await s.api.slots(day, 4, "The Lost Temple escape room");
  const gameOnly = game.slots[0].pricingPreview.grandTotal;
  assert.ok(addons.addons[0].totalPrice > 0);
  assert.ok(detail.grandTotal > gameOnly, `${detail.grandTotal} > ${gameOnly}`);
  await done();
});
