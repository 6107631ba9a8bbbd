// Booking groups in the console: staff build a group of two activities for a school
// class, hold them at once, confirm the group by invoice and record the invoice's
// payment; a package group is priced at the package's price, takes a promotion code on
// its total and is cancelled whole.
import { test } from "node:test";
import assert from "node:assert/strict";
import { openPage, checkA11y, signIn, suite, daysAheadInHelsinki, screenshot } from "./harness.mjs";

const s = suite();
const day = daysAheadInHelsinki(4);

/**
 * Adds an activity on the new group page: its `nth` session of `day`.
 * @param {import("playwright-core").Page} page
 * @param {string} name
 * @param {number} nth
 */
async function addActivity(page, name, nth) {
  const picker = page.getByRole("form", { name: "Add an activity" });
  await picker.getByLabel("Activity").selectOption({ label: name });
  await picker.getByLabel("Date").fill(day);
  await picker.locator('input[name="group-slot"]').nth(nth).check();
  await picker.getByRole("button", { name: "Add this activity" }).click();
  await page.locator("li[data-planned]", { hasText: name }).waitFor();
}

/**
 * Fills who the group is.
 * @param {import("playwright-core").Page} page
 */
async function fillWho(page, name, email, people) {
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("People", { exact: true }).fill(String(people));
  await page.getByLabel("People", { exact: true }).blur();
}

test("staff hold two activities as one group, invoice it and record its payment", async () => {
  const { page, done } = await openPage(s.browser);
  await signIn(page, s.server.base);
  // From the new booking wizard: several activities are booked as a group.
  await page.getByRole("navigation").getByRole("link", { name: "New booking" }).click();
  await page.getByRole("link", { name: "Book them as a group" }).click();
  await page.getByRole("heading", { name: "New group" }).waitFor();
  await fillWho(page, "Class 5B", "teacher@example.com", 4);
  await addActivity(page, "Bouldering session", 0);
  await addActivity(page, "The Lost Temple escape room", 2);
  await checkA11y(page, "the new group page");
  await screenshot(page, "group-new");
  await page.getByRole("button", { name: "Hold the 2 activities" }).click();

  await page.getByRole("heading", { name: /^Group / }).waitFor();
  await page.getByTestId("group-status").filter({ hasText: "Held" }).waitFor();
  assert.equal(await page.locator("tr[data-booking]").count(), 2);
  await page.getByTestId("group-total").filter({ hasText: "each activity at its own price" }).waitFor();
  await checkA11y(page, "a held group's page");
  await screenshot(page, "group");
  const url = page.url();

  // Confirmed by invoice: every activity confirmed at once.
  await page.getByLabel("Invoice (paid later)").check();
  await page.getByRole("button", { name: "Confirm every activity" }).click();
  await page.getByTestId("group-status").filter({ hasText: "Confirmed" }).waitFor();
  await page.getByText("Paid by").waitFor();
  assert.equal(await page.locator("tr[data-booking]", { hasText: "Confirmed" }).count(), 2);

  // The class pays the invoice by bank transfer: both activities paid.
  await page.getByRole("button", { name: "Record the payment" }).click();
  await page.getByRole("status").filter({ hasText: "Payment recorded." }).waitFor();
  await page.locator("tr[data-booking]", { hasText: "Paid" }).nth(1).waitFor();

  // The list finds it by the teacher's email.
  await page.getByRole("link", { name: "All groups" }).click();
  await page.getByLabel("Email").fill("teacher@");
  await page.getByRole("button", { name: "Search" }).click();
  await page.getByTestId("groups-summary").filter({ hasText: "1 groups" }).waitFor();
  await checkA11y(page, "the group list");
  await page.locator("tr[data-group] a").click();
  await page.waitForURL(url);
  await done();
});

test("a package group is priced at the package, takes a code and is cancelled whole", async () => {
  const { page, done } = await openPage(s.browser);
  await signIn(page, s.server.base);
  await page.getByRole("navigation").getByRole("link", { name: "Groups" }).click();
  await page.getByRole("heading", { name: "Groups" }).waitFor();
  await page.getByRole("link", { name: "New group" }).click();
  await page.getByRole("heading", { name: "New group" }).waitFor();
  await fillWho(page, "Stag party", "best.man@example.com", 3);
  await page.getByLabel("Package").selectOption({ label: "Climb & Escape" });
  await addActivity(page, "Bouldering session", 1);
  await addActivity(page, "The Lost Temple escape room", 3);
  await page.getByRole("button", { name: "Hold the 2 activities" }).click();
  await page.getByTestId("group-status").filter({ hasText: "Held" }).waitFor();
  // 35 EUR a person for both activities: 105 EUR for three.
  const total = await page.getByTestId("group-total").innerText();
  assert.match(total, /the package's price/);
  assert.match(total, /105\.00/);

  // A promotion code on the group's total: the package's price less 10 EUR.
  await s.api.call("POST", "/api/v1/admin/promotions", {
    code: "STAG10", name: "Stag parties", type: "fixed_amount", discount_value: 10,
    starts_at: "2026-01-01T00:00:00Z",
  });
  const codes = page.getByRole("form", { name: "Promotion code or voucher" });
  await codes.getByRole("textbox", { name: "Code" }).fill("stag10");
  await codes.getByRole("button", { name: "Apply to the group" }).click();
  await page.getByRole("status").filter({ hasText: "The code is applied to the group." }).waitFor();
  await page.getByTestId("group-total").filter({ hasText: "95.00" }).waitFor();
  await page.getByTestId("group-codes").filter({ hasText: "STAG10" }).waitFor();
  await checkA11y(page, "a held group with a code");
  await screenshot(page, "group-code");
  // An unknown code says so in words.
  await codes.getByRole("textbox", { name: "Code" }).fill("NOSUCH");
  await codes.getByRole("button", { name: "Apply to the group" }).click();
  await page.getByRole("alert").waitFor();
  await page.getByRole("button", { name: "Take STAG10 off" }).click();
  await page.getByTestId("group-total").filter({ hasText: "105.00" }).waitFor();

  await page.getByLabel("Why (kept in the history)").fill("The party moved to another town");
  await page.getByRole("button", { name: "Cancel every activity" }).click();
  await page.getByTestId("group-status").filter({ hasText: "Cancelled" }).waitFor();
  assert.equal(await page.locator("tr[data-booking]", { hasText: "Cancelled" }).count(), 2);
  // Its places are free again.
  const where = await s.api.slots(day, 1, "Bouldering session");
  assert.ok(where.slots.length > 0);
  await done();
});
