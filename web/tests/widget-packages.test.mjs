// Packages on the booking page, in a real Chromium: a customer books the demo's "Climb &
// Escape" for two, a time for each activity, both held at once as one group; a gift card
// pays part of the package's price and one card payment pays the rest. A gift card also
// pays part of a single booking.
import { test } from "node:test";
import assert from "node:assert/strict";
import { openPage, checkA11y, screenshot, suite, daysAheadInHelsinki } from "./harness.mjs";

const s = suite();
const day = daysAheadInHelsinki(5);

/** A gift card worth `value` EUR. @param {string} code @param {number} value */
async function giftCard(code, value) {
  await s.api.call("POST", "/api/v1/admin/vouchers", { code, type: "gift_card", original_value: value });
}

test("a customer books a package as one group, a gift card paying part and the card the rest", async () => {
  const { page, done } = await openPage(s.browser, { viewport: { width: 390, height: 844 } });
  await giftCard("GIFT-PACK-2026", 20);
  await page.goto(`${s.server.base}/book/demo`);
  await page.getByRole("heading", { name: "Packages: several activities together" }).waitFor();
  await page.getByRole("button", { name: /Climb & Escape/ }).click();

  await page.getByRole("heading", { name: "Climb & Escape" }).waitFor();
  await page.getByLabel("Day", { exact: true }).fill(day);
  await page.getByRole("combobox", { name: /People/ }).selectOption("2");
  const climbing = page.locator("fieldset[data-activity]").nth(0);
  const room = page.locator("fieldset[data-activity]").nth(1);
  await climbing.locator('input[type="radio"]').first().check();
  await room.locator('input[type="radio"]').nth(2).check();
  await page.getByLabel("Name", { exact: true }).fill("Grace Hopper");
  await page.getByLabel("Email", { exact: true }).fill("grace@example.com");
  await checkA11y(page, "the widget's package times");
  await screenshot(page, "widget-package");
  await page.getByRole("button", { name: "Hold the 2 activities" }).click();

  await page.getByRole("heading", { name: "Pay and confirm" }).waitFor();
  await page.getByText("Your places are held for").waitFor();
  assert.equal(await page.getByTestId("group-activities").locator("li").count(), 2);
  // 35 EUR a person for both activities.
  await page.getByTestId("price").filter({ hasText: "70.00" }).waitFor();

  await page.getByLabel("Promotion code, voucher or gift card").fill("NO-SUCH-CODE");
  await page.getByRole("button", { name: "Apply" }).click();
  await page.getByRole("alert").waitFor();
  await page.getByLabel("Promotion code, voucher or gift card").fill("gift-pack-2026");
  await page.getByRole("button", { name: "Apply" }).click();
  await page.getByRole("button", { name: /^Pay .*50\.00/ }).waitFor({ timeout: 5000 }).catch(async (e) => {
    throw new Error(`${e.message}\n${await page.locator("main").innerText()}`);
  });
  await checkA11y(page, "the widget's group checkout");
  await screenshot(page, "widget-package-checkout");

  await page.getByRole("button", { name: /^Pay / }).click();
  await page.getByLabel("Card number").fill("4242 4242 4242 4242");
  await page.getByRole("button", { name: /^Pay / }).click();
  await page.getByRole("heading", { name: "You are booked!" }).waitFor({ timeout: 20_000 });
  const reference = (await page.getByTestId("reference").innerText()).trim();
  const groups = await s.api.call("GET", "/api/v1/admin/booking-groups?customerEmail=grace@example.com");
  const group = groups.items?.[0] ?? groups.groups?.[0];
  assert.ok(group, JSON.stringify(groups));
  assert.equal(group.reference, reference);
  assert.equal(group.status, "CONFIRMED");
  const balance = await s.api.call("GET", "/api/v1/vouchers/GIFT-PACK-2026/balance");
  assert.equal(balance.voucher.current_balance, 0);
  await done();
});

test("a gift card pays part of a single booking in the widget", async () => {
  const { page, done } = await openPage(s.browser);
  await giftCard("GIFT-ONE-2026", 5);
  await page.goto(`${s.server.base}/book/demo`);
  await page.getByRole("heading", { name: "Choose an activity" }).waitFor();
  await page.locator("ul.cards").first().getByRole("button", { name: /Bouldering session/ }).click();
  await page.getByLabel("Day", { exact: true }).fill(day);
  await page.locator("button.time").first().click();
  await page.getByLabel("Name", { exact: true }).fill("Ada Lovelace");
  await page.getByLabel("Email", { exact: true }).fill("ada@example.com");
  await page.getByRole("button", { name: "Hold my places" }).click();
  await page.getByRole("heading", { name: "Pay and confirm" }).waitFor();
  await page.getByLabel("Promotion code, voucher or gift card").fill("GIFT-ONE-2026");
  await page.getByRole("button", { name: "Apply" }).click();
  await page.getByTestId("price").filter({ hasText: "−€5.00" }).waitFor();
  await done();
});
