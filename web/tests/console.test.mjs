// The staff console in a real Chromium: sign-in, the day sheet's desk actions, a
// cancellation with its refund, and a session that expires under a page without losing it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { openPage, checkA11y, screenshot, signIn, openSetup, DEMO, tomorrowInHelsinki, suite } from "./harness.mjs";

const s = suite();
const day = tomorrowInHelsinki();

/**
 * The row of a booking on the day sheet.
 * @param {import("playwright-core").Page} page
 * @param {string} reference
 */
const row = (page, reference) => page.locator(`tr[data-booking="${reference}"]`);

test("signing in shows the day sheet; a wrong password says so; signing out returns", async () => {
  const { page, done } = await openPage(s.browser);
  await page.goto(`${s.server.base}/admin?tenant=demo`);
  await checkA11y(page, "sign-in");
  await page.getByLabel("Username").fill("admin");
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("alert").filter({ hasText: "The username or password is wrong." }).waitFor();
  await page.getByLabel("Password").fill(DEMO.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Day sheet" }).waitFor();
  await page.locator(".summary").getByText("Helsinki Adventure Centre", { exact: false }).waitFor();
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByRole("heading", { name: "Sign in" }).waitFor();
  await done();
});

test("the day sheet marks a payment, an arrival and a no-show, and another desk sees it", async () => {
  const where = await s.api.slots(day);
  const ada = await s.api.payOnArrival(await s.api.hold(where, where.slots[0].slotId, "Ada Lovelace", 2));
  const alan = await s.api.payOnArrival(await s.api.hold(where, where.slots[0].slotId, "Alan Turing", 3));

  const desk1 = await openPage(s.browser);
  const desk2 = await openPage(s.browser);
  for (const d of [desk1, desk2]) {
    await signIn(d.page, s.server.base);
    await d.page.goto(`${s.server.base}/admin?date=${day}`);
    await row(d.page, ada).waitFor();
  }
  const page = desk1.page;
  await checkA11y(page, "the day sheet");
  await screenshot(page, "day-sheet");

  await row(page, ada).getByRole("button", { name: "Paid" }).click();
  await row(page, ada).getByText("Paid", { exact: true }).first().waitFor();
  await row(page, ada).getByRole("button", { name: "Arrived" }).click();
  await row(page, ada).locator(".status.arrived").waitFor();
  await row(page, alan).getByRole("button", { name: "No-show" }).click();
  await row(page, alan).locator(".status.no_show").waitFor();
  // The no-show can be corrected to an arrival; the arrival no longer offers "Arrived".
  await row(page, alan).getByRole("button", { name: "Arrived" }).waitFor();
  assert.equal(await row(page, ada).getByRole("button", { name: "Arrived" }).count(), 0);

  // The other desk's sheet catches up on its own within seconds.
  await row(desk2.page, ada).locator(".status.arrived").waitFor({ timeout: 15_000 });
  await row(desk2.page, alan).locator(".status.no_show").waitFor({ timeout: 15_000 });

  const bookings = await s.api.call("GET", `/api/v1/admin/bookings?customerEmail=ada@example.com`);
  assert.equal(bookings.bookings.find((/** @type {any} */ b) => b.bookingReference === ada).status, "arrived");
  await desk1.done();
  await desk2.done();
});

test("the day sheet shows the instructor a course session was given", async () => {
  const where = await s.api.slots(day, 2, "Kids' climbing course");
  const slot = where.slots[0].slotId;
  await s.api.hold(where, slot, "Edsger Dijkstra", 2);
  const { page, done } = await openPage(s.browser);
  await signIn(page, s.server.base);
  await page.goto(`${s.server.base}/admin?date=${day}`);
  // The lowest qualifying level goes first: Leo (level 2) before Mia (level 3).
  await page.locator(`[data-slot="${slot}"]`).getByText("Uses: Leo Nieminen (Climbing instructor)").waitFor();
  await done();
});

test("a cancellation shows its refund first, then makes it", async () => {
  const where = await s.api.slots(day);
  const hold = await s.api.hold(where, where.slots[1].slotId, "Grace Hopper", 2);
  const paid = await s.api.payByCard(hold);

  const { page, done } = await openPage(s.browser);
  await signIn(page, s.server.base);
  await page.goto(`${s.server.base}/admin?date=${day}`);
  const r = row(page, paid.bookingReference);
  await r.getByRole("button", { name: "Cancel…" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByLabel("Reason").selectOption("weather");
  const preview = dialog.locator('[data-testid="cancel-preview"][data-reason="weather"]');
  await preview.waitFor();
  const figures = await preview.locator("dd").allInnerTexts();
  // Paid in full by card; the venue's reason refunds it all.
  const paidText = new Intl.NumberFormat("en-US", { style: "currency", currency: "EUR" }).format(paid.grandTotal);
  assert.equal(figures[0], paidText);
  assert.equal(figures[1], "€0.00");
  assert.equal(figures[2], paidText);
  await checkA11y(page, "the cancellation dialog");
  await screenshot(page, "cancel-dialog");
  await dialog.getByRole("button", { name: "Cancel the booking" }).click();
  await page.getByRole("status").filter({ hasText: "will be refunded" }).waitFor();
  await r.locator(".status.canceled").waitFor();

  const b = await s.api.call("GET", `/api/v1/admin/bookings/${hold.id}`);
  assert.equal(b.status, "canceled");
  await done();
});

test("an expired session asks to sign in again over the page and then finishes the action", async () => {
  const where = await s.api.slots(day);
  const ref = await s.api.payOnArrival(await s.api.hold(where, where.slots[2].slotId, "Edsger Dijkstra", 1));
  const { page, done } = await openPage(s.browser);
  await signIn(page, s.server.base);
  await page.goto(`${s.server.base}/admin?date=${day}`);
  await row(page, ref).waitFor();
  // The token runs out (an hour on a real desk): the API answers 401 from now on.
  await page.evaluate(() => {
    const key = "kairos.console.session";
    const s = JSON.parse(sessionStorage.getItem(key) ?? "{}");
    sessionStorage.setItem(key, JSON.stringify({ ...s, token: "expired.token.value" }));
  });
  await page.reload();
  await row(page, ref).waitFor({ state: "detached" }).catch(() => {});
  const dialog = page.getByRole("dialog");
  await dialog.getByText("Your session has ended").waitFor();
  await checkA11y(page, "the sign-in dialog");
  await dialog.getByLabel("Password").fill(DEMO.password);
  await dialog.getByRole("button", { name: "Sign in" }).click();
  await row(page, ref).getByRole("button", { name: "Paid" }).click();
  await row(page, ref).locator(".status.paid").waitFor();
  await done();
});

test("the booking page shows its address and an iframe snippet that works", async () => {
  const { page, done } = await openPage(s.browser);
  await signIn(page, s.server.base);
  await openSetup(page, "Booking page");
  await page.getByRole("heading", { name: "Your booking page" }).waitFor();
  const snippet = await page.getByTestId("snippet").inputValue();
  assert.match(snippet, new RegExp(`^<iframe src="${s.server.base}/book/demo"`));
  // The preview is the widget itself, framed as a venue's site frames it.
  await page.frameLocator("iframe.preview").getByRole("heading", { name: "Choose an activity" }).waitFor();
  await checkA11y(page, "the booking page");
  await done();
});

test("the message log shows a booking's confirmation, and the queue of failures is empty", async () => {
  const where = await s.api.slots(day);
  await s.api.payOnArrival(await s.api.hold(where, where.slots[3].slotId, "Barbara Liskov", 2));
  const { page, done } = await openPage(s.browser);
  await signIn(page, s.server.base);
  await openSetup(page, "Messages");
  await page.getByRole("heading", { name: "Messages" }).waitFor();
  // The confirmation goes out within seconds (the demo writes it to a file).
  const row = page.locator("tr[data-message]", { hasText: "barbara@example.com" });
  for (let i = 0; i < 30 && !(await row.filter({ hasText: "Delivered" }).count()); i++) {
    await page.waitForTimeout(500);
    await page.getByRole("button", { name: "Refresh" }).click();
  }
  await row.filter({ hasText: "Delivered" }).waitFor();
  await row.getByRole("button").click();
  await row.locator("pre.message-body").filter({ hasText: "Barbara" }).waitFor();
  await checkA11y(page, "the message log");
  await page.getByRole("link", { name: "Needs attention" }).click();
  await page.getByTestId("dlq-empty").waitFor();
  await checkA11y(page, "the dead-letter queue");
  await done();
});

test("the day sheet and the wizard fit a front desk's tablet and a phone without sideways scrolling", async () => {
  for (const viewport of [{ width: 768, height: 1024 }, { width: 390, height: 844 }]) {
    const { page, done } = await openPage(s.browser, { viewport });
    await signIn(page, s.server.base);
    await page.goto(`${s.server.base}/admin?date=${day}`);
    await page.locator(".summary strong").waitFor();
    const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(wide <= 0, `the day sheet is ${wide}px wider than a ${viewport.width}px screen`);
    await checkA11y(page, `the day sheet at ${viewport.width}px`);
    await page.goto(`${s.server.base}/admin/operations/bookings/new`);
    await page.getByRole("heading", { name: "Site" }).waitFor();
    const wizardWide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(wizardWide <= 0, `the wizard is ${wizardWide}px wider than a ${viewport.width}px screen`);
    await done();
  }
});
