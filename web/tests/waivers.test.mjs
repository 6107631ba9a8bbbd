// Waivers in a real Chromium: a customer books bouldering (the demo's waiver activity) on a
// phone, with a child's ticket, naming the party, then signs on the signing page for themself (drawing the
// signature) and, as a parent, for their child, and names a third person there; staff see
// each person's waiver on the booking's page, record a paper waiver and send the link;
// the console publishes a new version of the waiver text.
import { test } from "node:test";
import assert from "node:assert/strict";
import { openPage, checkA11y, screenshot, signIn, suite, daysAheadInHelsinki, openSetup } from "./harness.mjs";

const s = suite();
const day = daysAheadInHelsinki(6);

test("a customer names the party and everyone's waiver is signed on the signing page", async () => {
  const { page, done } = await openPage(s.browser, { viewport: { width: 390, height: 844 } });
  await page.goto(`${s.server.base}/book/demo`);
  await page.locator("ul.cards").first().getByRole("button", { name: /^Bouldering session/ }).click();
  await page.getByLabel("Day", { exact: true }).fill(day);
  await page.getByRole("combobox", { name: /People/ }).selectOption("3");
  // Tim is a child: his ticket is 12.00 beside the adults' 18.00, in every time's price.
  await page.locator("button.time").first().filter({ hasText: "54.00" }).waitFor();
  await page.getByLabel(/^Child \(under 12\)/).fill("1");
  await page.getByLabel(/^Child \(under 12\)/).blur();
  await page.locator("button.time").first().filter({ hasText: "48.00" }).waitFor();
  await page.getByText("The other 2 at the full price of €18.00 each").waitFor();
  await checkA11y(page, "the widget's times with a child's ticket");
  await page.locator("button.time").first().click();
  await page.getByLabel("Name", { exact: true }).fill("Grace Hopper");
  await page.getByLabel("Email", { exact: true }).fill("grace@example.com");
  assert.ok(await page.getByLabel(/I am taking part too/).isChecked());
  const person2 = page.locator("fieldset.participant").nth(0);
  await person2.getByLabel("First name").fill("Tim");
  await person2.getByLabel("Last name").fill("Hopper");
  await person2.getByLabel(/Date of birth/).fill("2016-05-05");
  await checkA11y(page, "the widget's details with participants");
  await page.getByRole("button", { name: "Hold my places" }).click();
  await page.getByRole("heading", { name: "Pay and confirm" }).waitFor();
  await page.getByTestId("price").filter({ hasText: "48.00" }).waitFor();
  await page.getByLabel("Pay on arrival").check();
  await page.getByRole("button", { name: "Confirm the booking" }).click();
  await page.getByRole("heading", { name: "You are booked!" }).waitFor();
  const reference = (await page.getByTestId("reference").innerText()).trim();
  await page.getByTestId("waiver-link").click();

  await page.getByRole("heading", { name: `Waivers for booking ${reference}` }).waitFor();
  await page.getByTestId("waiver-text").filter({ hasText: "at my own risk" }).waitFor();
  await page.getByTestId("progress").filter({ hasText: "0 of 3 signed" }).waitFor();
  await checkA11y(page, "the signing page");
  await screenshot(page, "waiver-signing");

  // Grace signs for herself, drawing her signature.
  await page.getByRole("button", { name: "Sign for Grace Hopper" }).click();
  const form = page.getByRole("form", { name: "Sign for Grace Hopper" });
  assert.equal(await form.getByLabel("Your full name").inputValue(), "Grace Hopper");
  await form.getByLabel("Your email").fill("grace@example.com");
  const pad = form.getByTestId("signature");
  await pad.scrollIntoViewIfNeeded();
  const box = await pad.boundingBox();
  assert.ok(box);
  await page.mouse.move(box.x + 20, box.y + 40);
  await page.mouse.down();
  await page.mouse.move(box.x + 120, box.y + 60, { steps: 8 });
  await page.mouse.move(box.x + 200, box.y + 30, { steps: 8 });
  await page.mouse.up();
  await form.getByLabel("I have read the waiver above and agree to it").check();
  await form.getByRole("button", { name: "Sign the waiver" }).click();
  await page.getByTestId("progress").filter({ hasText: "1 of 3 signed" }).waitFor().catch(async (e) => {
    throw new Error(`${e.message}\n${await page.locator("main").innerText()}`);
  });

  // Tim is 10: his mother signs as his guardian.
  await page.getByRole("button", { name: "Sign for Tim Hopper" }).click();
  const tim = page.getByRole("form", { name: "Sign for Tim Hopper" });
  await tim.getByLabel("Parent or guardian's full name").fill("Grace Hopper");
  await tim.getByLabel("Your email").fill("grace@example.com");
  await tim.getByLabel(/Your relationship to Tim Hopper/).fill("mother");
  await tim.getByLabel(/on behalf of Tim Hopper/).check();
  await checkA11y(page, "a guardian signing");
  await tim.getByRole("button", { name: "Sign the waiver" }).click();
  await page.getByTestId("progress").filter({ hasText: "2 of 3 signed" }).waitFor();

  // The third person is not named yet: they add themself and sign.
  const add = page.getByRole("form", { name: "Add a person" });
  await add.getByLabel("First name").fill("Alan");
  await add.getByLabel("Last name").fill("Turing");
  await add.getByRole("button", { name: "Add" }).click();
  await page.getByRole("button", { name: "Sign for Alan Turing" }).click();
  const alan = page.getByRole("form", { name: "Sign for Alan Turing" });
  await alan.getByLabel("Your email").fill("alan@example.com");
  await alan.getByLabel("I have read the waiver above and agree to it").check();
  await alan.getByRole("button", { name: "Sign the waiver" }).click();
  await page.getByTestId("progress").filter({ hasText: "everyone's waiver is signed" }).waitFor();

  const found = await s.api.call("GET", `/api/v1/admin/bookings?customerEmail=grace@example.com`);
  const booking = (found.items ?? found.bookings ?? found.data ?? []).find((/** @type {any} */ b) => b.bookingReference === reference);
  assert.ok(booking, JSON.stringify(found).slice(0, 500));
  const signatures = await s.api.call("GET", `/api/v1/waivers/signatures?bookingId=${booking.bookingId}`);
  assert.equal(signatures.total, 3);
  const drawn = signatures.signatures.find((/** @type {any} */ x) => x.participantName === "Grace Hopper");
  assert.match(drawn.signatureData, /^data:image\/png;base64,/);
  const child = signatures.signatures.find((/** @type {any} */ x) => x.participantName === "Tim Hopper");
  assert.equal(child.isMinor, true);
  assert.equal(child.isGuardianSignature, true);
  assert.equal(child.guardianRelationship, "mother");
  await done();
});

test("staff see each person's waiver, record a paper one and send the signing link", async () => {
  const where = await s.api.slots(day, 2, "Bouldering session");
  const hold = await s.api.call("POST", "/api/v1/bookings/hold", {
    siteId: where.site,
    productId: where.product.id,
    slotId: where.slots[2].slotId,
    partySize: 2,
    customer: { name: "Ada Lovelace", email: "ada@example.com" },
    participants: [{ firstName: "Ada", lastName: "Lovelace", medicalConditions: "asthma" }],
  });
  const reference = await s.api.payOnArrival(hold);

  const { page, done } = await openPage(s.browser);
  await signIn(page, s.server.base);
  await page.goto(`${s.server.base}/admin/bookings/${hold.id}`);
  await page.getByRole("heading", { name: `Booking ${reference}` }).waitFor();
  await page.getByRole("heading", { name: "Participants and waivers" }).waitFor();
  await page.getByTestId("participants").getByText("asthma").waitFor();
  await page.getByTestId("waiver-summary").filter({ hasText: "Waivers missing: 2" }).waitFor();
  await checkA11y(page, "a booking's waivers");

  const waivers = page.getByTestId("waivers");
  await waivers.getByRole("row", { name: /Ada Lovelace/ }).getByRole("button", { name: "Record a paper waiver" }).click();
  const paper = page.getByRole("form", { name: "Record a paper waiver" });
  await paper.getByLabel(/Where the paper is filed/).fill("Folder 12");
  await paper.getByRole("button", { name: "Record it" }).click();
  await waivers.getByRole("row", { name: /Ada Lovelace/ }).getByText("Paper waiver").waitFor();

  await waivers.getByRole("row", { name: /Not named yet/ }).getByRole("button", { name: "Send the signing link" }).click();
  await page.getByText("Signing link sent to ada@example.com.").waitFor();
  await waivers.getByRole("row", { name: /Not named yet/ }).getByText(/Link sent/).waitFor();
  await page.getByTestId("history").getByText("Waiver signed").waitFor();
  await page.getByTestId("history").getByText("Signing link sent").waitFor();
  await screenshot(page, "booking-waivers");
  await done();
});

test("the console publishes a new version of the waiver text", async () => {
  const { page, done } = await openPage(s.browser);
  await signIn(page, s.server.base);
  await openSetup(page, "Waivers");
  await page.getByRole("heading", { name: "Waivers", exact: true }).waitFor();
  const rows = page.getByTestId("waiver-templates").locator("tbody tr");
  const inLanguage = (/** @type {string} */ locale) =>
    rows.filter({ has: page.locator("td:nth-child(2)", { hasText: new RegExp(`^${locale}$`) }) });
  await inLanguage("fi").first().waitFor();
  await checkA11y(page, "the waiver texts");
  await inLanguage("en").getByRole("button", { name: "Change the text" }).first().click();
  const form = page.getByRole("form", { name: "Publish a waiver text" });
  await form.getByLabel("Text").fill("Climbing carries a risk of injury. Helmets on the high wall.");
  await form.getByRole("button", { name: "Publish" }).click();
  await page.getByText("Climbing waiver version 2 is now in use.").waitFor();
  const active = await s.api.call("GET", "/api/v1/waivers/active?locale=en");
  assert.equal(active.data.version, "2");
  assert.match(active.data.content, /Helmets/);
  await done();
});
