// Setup in the console: a site and an activity added and changed, a staff account made
// for the front desk, who then signs in and is offered only what the role allows.
import { test } from "node:test";
import assert from "node:assert/strict";
import { openPage, checkA11y, signIn, openSetup, setupLink, suite } from "./harness.mjs";

const s = suite();

test("an owner sets up a site, an activity with a junior ticket and a front desk account", async () => {
  const { page, done } = await openPage(s.browser);
  await signIn(page, s.server.base);

  await openSetup(page, "Sites");
  await page.getByRole("button", { name: "Add a site" }).click();
  const siteForm = page.getByRole("form", { name: "Site" });
  await siteForm.getByLabel("Name", { exact: true }).fill("Tampere Hall");
  await siteForm.getByLabel("Time zone").fill("Europe/Helsinki");
  await siteForm.getByLabel("Address").fill("Hämeenkatu 1, Tampere");
  await checkA11y(page, "the site form");
  await siteForm.getByRole("button", { name: "Save" }).click();
  await page.locator('tr[data-site="Tampere Hall"]').waitFor();

  await openSetup(page, "Activities");
  await page.getByRole("button", { name: "Add an activity" }).click();
  const productForm = page.getByRole("form", { name: "Activity" });
  await productForm.getByLabel("Site").selectOption({ label: "Tampere Hall" });
  await productForm.getByLabel("Name", { exact: true }).fill("Laser tag");
  await productForm.getByLabel("Length in minutes").fill("45");
  await productForm.getByLabel("Places per session").fill("12");
  await productForm.getByLabel("Price per person").fill("25");
  await checkA11y(page, "the activity form");
  await productForm.getByRole("button", { name: "Save" }).click();
  const row = page.locator('tr[data-product="Laser tag"]');
  await row.waitFor();
  await row.getByRole("button", { name: "Edit" }).click();
  await page.getByRole("form", { name: "Activity" }).getByLabel("Places per session").fill("16");
  // A junior's ticket with its own price.
  await page.getByRole("button", { name: "Add a ticket type" }).click();
  await page.getByLabel("Ticket type", { exact: true }).fill("Junior (7-15)");
  await page.getByLabel("Price of this ticket").fill("15");
  await checkA11y(page, "the activity form with a ticket type");
  await page.getByRole("form", { name: "Activity" }).getByRole("button", { name: "Save" }).click();
  await row.getByText("16", { exact: true }).waitFor();

  await openSetup(page, "Staff");
  await page.getByRole("button", { name: "Add a staff account" }).click();
  const userForm = page.getByRole("form", { name: "Staff account" });
  await userForm.getByLabel("Username").fill("mia");
  await userForm.getByLabel("Name", { exact: true }).fill("Mia Front");
  await userForm.getByLabel("Password").fill("mia-desk-password-1");
  await userForm.getByLabel("Role").selectOption("front_desk");
  await checkA11y(page, "the staff form");
  await userForm.getByRole("button", { name: "Save" }).click();
  await page.locator('tr[data-user="mia"]').waitFor();
  await page.getByRole("button", { name: "Sign out" }).click();

  // The front desk signs in: no staff accounts, no import, but the day sheet and bookings.
  await signIn(page, s.server.base, { tenant: "demo", username: "mia", password: "mia-desk-password-1" });
  await page.getByRole("link", { name: "Bookings" }).waitFor();
  await page.getByRole("navigation").getByRole("link", { name: "Setup" }).click();
  await setupLink(page, "Sites").waitFor();
  assert.equal(await setupLink(page, "Staff").count(), 0);
  assert.equal(await setupLink(page, "Import and export").count(), 0);
  assert.equal(await setupLink(page, "Payments").count(), 0);

  const products = await s.api.call("GET", "/api/v1/admin/products");
  const laser = products.items.find((/** @type {any} */ p) => p.name === "Laser tag");
  assert.equal(laser.capacity, 16);
  assert.equal(laser.durationMins, 45);
  assert.deepEqual(laser.participantTypes, [{ type: "junior_7_15", name: "Junior (7-15)", price: 15 }]);
  await done();
});

test("a promotion is added, its statistics shown and switched off", async () => {
  const { page, done } = await openPage(s.browser);
  await signIn(page, s.server.base);
  await openSetup(page, "Promotions");
  await page.getByRole("button", { name: "Add a promotion" }).click();
  const form = page.getByRole("form", { name: "Promotion" });
  await form.getByLabel("Code", { exact: true }).fill("SUMMER15");
  await form.getByLabel("Name", { exact: true }).fill("Summer 15 %");
  await form.getByLabel("Discount (percent or amount)").fill("15");
  await form.getByLabel("Uses at most").fill("100");
  await checkA11y(page, "the promotion form");
  await form.getByRole("button", { name: "Save" }).click();
  const row = page.locator('tr[data-promotion="SUMMER15"]');
  await row.waitFor();
  await row.getByRole("button", { name: "Statistics" }).click();
  await page.getByTestId("promo-stats").getByText("How SUMMER15 is used").waitFor();
  await checkA11y(page, "the promotion statistics");
  await row.getByRole("button", { name: "Switch off" }).click();
  await row.getByRole("button", { name: "Switch on" }).waitFor();
  const list = await s.api.call("GET", "/api/v1/admin/promotions?search=SUMMER15");
  const promo = list.promotions.find((/** @type {any} */ p) => p.code === "SUMMER15");
  assert.equal(promo.discount_value, 15);
  assert.equal(promo.usage_limit, 100);
  assert.equal(promo.is_active, false);
  await done();
});

test("a closed day and a day with other hours show in the week's calendar of sessions", async () => {
  const { page, done } = await openPage(s.browser);
  await signIn(page, s.server.base);
  await openSetup(page, "Opening hours");
  await page.getByRole("heading", { name: "Weekly hours" }).waitFor();
  const { daysAheadInHelsinki } = await import("./harness.mjs");
  const day = daysAheadInHelsinki(9);
  const week = page.getByTestId("week");
  await page.getByRole("button", { name: "Next week" }).click();
  const cell = week.locator(`[data-day="${day}"]`);
  await cell.locator(".week-slot").first().waitFor();
  await checkA11y(page, "the opening hours");
  await page.getByRole("button", { name: "Add closed days" }).click();
  const form = page.getByRole("form", { name: "Closed days" });
  await form.getByLabel("From").fill(day);
  await form.getByLabel("Why").selectOption("maintenance");
  await form.getByLabel("Note").fill("New floor");
  await form.getByRole("button", { name: "Save" }).click();
  await page.locator("ul.rules").getByText("New floor").waitFor();
  await cell.getByText("No sessions").waitFor();

  // The day after opens late: its first session is at 15:00.
  const next = daysAheadInHelsinki(10);
  await page.getByRole("button", { name: "Add other hours for some days" }).click();
  const special = page.getByRole("form", { name: "Other hours" });
  await special.getByLabel("From").fill(next);
  await special.getByLabel("Opens").fill("15:00");
  await special.getByLabel("Closes").fill("21:00");
  await special.getByLabel("Note").fill("Staff training");
  await special.getByRole("button", { name: "Save" }).click();
  await page.locator("ul.rules").getByText("Staff training").waitFor();
  await week.locator(`[data-day="${next}"] .week-slot`).first().filter({ hasText: /^0?3:00\sPM$|^15:00$/ }).waitFor();
  await done();
});

test("the owner sets the bank account and the cancellation fee; secrets are never shown", async () => {
  const { page, done } = await openPage(s.browser);
  await signIn(page, s.server.base);
  await openSetup(page, "Payments");
  await page.getByRole("heading", { name: "Payment accounts" }).waitFor();
  await page.getByRole("button", { name: "Set the bank account" }).click();
  const form = page.getByRole("form", { name: "Online bank (Paytrail)" });
  await form.getByLabel("Merchant id").fill("375917");
  await form.getByLabel("Secret key").fill("SAIPPUAKAUPPIAS");
  await checkA11y(page, "the payment account form");
  await form.getByRole("button", { name: "Save" }).click();
  const row = page.locator('tr[data-account="bankpay"]');
  await row.waitFor();
  assert.ok(!(await page.locator("main").innerText()).includes("SAIPPUAKAUPPIAS"), "the secret is not shown");

  const policy = page.getByRole("form", { name: "Cancellation fee when customers cancel" });
  await policy.getByLabel("A share of what was paid").check();
  await policy.getByLabel("Percent").fill("10");
  await policy.getByRole("button", { name: "Save" }).click();
  let stored = await s.api.call("GET", "/api/v1/admin/payments/refund-policy");
  for (let i = 0; i < 50 && stored.feeType !== "percentage"; i++) {
    await page.waitForTimeout(100);
    stored = await s.api.call("GET", "/api/v1/admin/payments/refund-policy");
  }
  assert.equal(stored.feeType, "percentage");
  assert.equal(stored.percentage, 10);

  await row.getByRole("button", { name: "Remove" }).click();
  await row.waitFor({ state: "detached" });
  await done();
});

test("a template is edited with a live preview and saved; a reminder rule is added and switched off; a gift card is put on sale and taken off", async () => {
  const { page, done } = await openPage(s.browser);
  await signIn(page, s.server.base);
  await openSetup(page, "Templates");
  const builtIn = page.locator('tr[data-template^="booking_confirmation:en:true"]');
  await builtIn.getByRole("button", { name: "Edit" }).click();
  const editor = page.getByRole("form", { name: "Template" });
  await editor.getByLabel("Subject").fill("See you soon, {{customerName}}!");
  const preview = page.getByTestId("template-preview");
  // The preview fills the variable with the sample data the API renders it with.
  await preview.locator("strong", { hasText: /^See you soon, (?!\{\{).+!$/ }).waitFor({ timeout: 5000 }).catch(async (e) => {
    throw new Error(`${e.message}\n${await page.locator("main").innerText()}`);
  });
  await checkA11y(page, "the template editor");
  await editor.getByRole("button", { name: "Save" }).click();
  await page.locator('tr[data-template^="booking_confirmation:en:false"]').waitFor();
  const list = await s.api.call("GET", "/api/v1/admin/messaging/templates?templateKey=booking_confirmation");
  assert.ok(list.templates.some((/** @type {any} */ x) => !x.isGlobal && x.subjectTemplate === "See you soon, {{customerName}}!"));

  // A reminder two days before, added, then switched off.
  await page.getByRole("button", { name: "Add a rule" }).click();
  const ruleForm = page.getByRole("form", { name: "Rule" });
  await ruleForm.getByLabel("Name", { exact: true }).fill("Two days before");
  await ruleForm.getByLabel("Offset").fill("-2");
  await ruleForm.getByLabel("Unit").selectOption("days");
  await ruleForm.getByRole("button", { name: "Save" }).click();
  const ruleRow = page.locator('tr[data-rule="Two days before"]');
  await ruleRow.getByText("-2 days").waitFor();
  await ruleRow.getByRole("button", { name: "Switch off" }).click();
  await ruleRow.getByRole("button", { name: "Switch on" }).waitFor();
  const rules = await s.api.call("GET", "/api/v1/admin/messaging/automation-rules");
  const made = rules.rules.find((/** @type {any} */ r) => r.name === "Two days before");
  assert.equal(made.isActive, false);
  assert.equal(made.triggerOffset, -2);

  await openSetup(page, "Gift cards");
  await page.getByRole("heading", { name: "On sale" }).waitFor();
  await page.locator("main li").first().waitFor();
  await page.getByRole("button", { name: "Add a gift card" }).click();
  const gift = page.getByRole("form", { name: "Gift card" });
  await gift.getByLabel("Name", { exact: true }).fill("Climbing day for two");
  await gift.getByLabel("Value", { exact: true }).fill("72");
  await checkA11y(page, "the gift cards");
  await gift.getByRole("button", { name: "Save" }).click();
  const item = page.locator('li[data-gift="Climbing day for two"]');
  await item.getByRole("button", { name: "Take off sale" }).click();
  await item.getByRole("button", { name: "Put on sale" }).waitFor();
  const sale = await s.api.call("GET", "/api/v1/gift-cards/products");
  assert.ok(!JSON.stringify(sale).includes("Climbing day for two"), "off sale: not offered to customers");
  await done();
});

test("an activity gains an option and an extra, then both are taken off sale", async () => {
  const products = await s.api.call("GET", "/api/v1/admin/products");
  const product = products.items[0];
  const { page, done } = await openPage(s.browser);
  await signIn(page, s.server.base);
  await openSetup(page, "Activities");
  await page.locator(`tr[data-product="${product.name}"]`).getByRole("button", { name: "Options and extras" }).click();
  await page.getByRole("button", { name: "Add an option" }).click();
  const option = page.getByRole("form", { name: "Option" });
  await option.getByLabel("Name", { exact: true }).fill("Night climb");
  await option.getByLabel("Amount per person").fill("30");
  await option.getByRole("button", { name: "Save" }).click();
  await page.locator('li[data-variant="Night climb"]').waitFor();
  await page.getByRole("button", { name: "Add an extra" }).click();
  const extra = page.getByRole("form", { name: "Extra" });
  await extra.getByLabel("Name", { exact: true }).fill("Chalk bag");
  await extra.getByLabel("Price").fill("4");
  await checkA11y(page, "the options and extras");
  await extra.getByRole("button", { name: "Save" }).click();
  await page.locator('li[data-addon="Chalk bag"]').waitFor();
  const variants = await s.api.call("GET", `/api/v1/admin/products/${product.id}/variants`);
  assert.ok(variants.items.some((/** @type {any} */ v) => v.name === "Night climb" && v.priceAmount === 30));
  const addons = await s.api.call("GET", `/api/v1/admin/products/${product.id}/addons`);
  assert.ok(addons.items.some((/** @type {any} */ a) => a.name === "Chalk bag"));

  // Both are taken off sale (bookings that have them keep them).
  const bag = page.locator('li[data-addon="Chalk bag"]');
  await bag.getByRole("button", { name: "Take off sale" }).click();
  await bag.getByRole("button", { name: "Put on sale" }).waitFor();
  const night = page.locator('li[data-variant="Night climb"]');
  await night.getByRole("button", { name: "Take off sale" }).click();
  await night.getByRole("button", { name: "Put on sale" }).waitFor();
  const after = await s.api.call("GET", `/api/v1/admin/products/${product.id}/addons`);
  assert.equal(after.items.find((/** @type {any} */ a) => a.name === "Chalk bag").available, false);
  const left = await s.api.call("GET", `/api/v1/admin/products/${product.id}/variants`);
  assert.equal(left.items.find((/** @type {any} */ v) => v.name === "Night climb").isActive, false);
  await done();
});
