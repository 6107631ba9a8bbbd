// Bookings in the console: the search with its filters and summary, and a booking's page:
// customer details corrected, notes added, edited and deleted, a move checked then made,
// and an arrival.
import { test } from "node:test";
import assert from "node:assert/strict";
import { openPage, checkA11y, signIn, suite, daysAheadInHelsinki } from "./harness.mjs";

const s = suite();
const day = daysAheadInHelsinki(3);

test("staff find a booking, correct it, annotate it and move it", async () => {
  const where = await s.api.slots(day);
  const ada = await s.api.payOnArrival(await s.api.hold(where, where.slots[0].slotId, "Ada Lovelace", 2));
  await s.api.payOnArrival(await s.api.hold(where, where.slots[1].slotId, "Alan Turing", 1));

  const { page, done } = await openPage(s.browser);
  await signIn(page, s.server.base);
  await page.getByRole("link", { name: "Bookings" }).click();
  await page.getByRole("heading", { name: "Bookings" }).waitFor();
  await page.getByTestId("summary").filter({ hasText: "2 bookings" }).waitFor();
  await page.getByLabel("Email", { exact: true }).fill("ada@");
  await page.getByRole("button", { name: "Search" }).click();
  await page.getByTestId("summary").filter({ hasText: "1 bookings" }).waitFor();
  assert.match(page.url(), /customerEmail=ada%40/);
  await checkA11y(page, "the booking search");
  await page.locator(`tr[data-booking="${ada}"] a`).click();

  await page.getByRole("heading", { name: `Booking ${ada}` }).waitFor();
  await checkA11y(page, "a booking's page");
  await page.getByRole("button", { name: "Edit details" }).click();
  await page.getByLabel("Phone", { exact: true }).fill("+358 40 999 0000");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.getByText("+358 40 999 0000").first().waitFor();

  await page.getByLabel("New note").fill("Allergic to nuts");
  await page.getByRole("button", { name: "Add the note" }).click();
  await page.locator("ul.notes").getByText("Allergic to nuts").waitFor();
  await page.locator("ul.notes").getByRole("button", { name: "Edit" }).click();
  await page.getByLabel("Note", { exact: true }).fill("Allergic to nuts and sesame");
  await page.locator("ul.notes").getByRole("button", { name: "Save" }).click();
  await page.locator("ul.notes").getByText("Allergic to nuts and sesame").waitFor();
  await page.locator("ul.notes").getByRole("button", { name: "Delete" }).click();
  await page.getByText("No notes yet.").waitFor();

  const before = await page.getByTestId("when").innerText();
  await page.getByRole("button", { name: "Move…" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.locator('input[name="move-slot"]').nth(2).check();
  await dialog.getByTestId("precheck").waitFor();
  await checkA11y(page, "the move dialog");
  await dialog.getByLabel("Why").fill("Customer asked for later");
  await dialog.getByRole("button", { name: "Move it" }).click();
  await page.getByRole("status").filter({ hasText: "Moved to" }).waitFor();
  await page.waitForFunction((b) => document.querySelector('[data-testid="when"]')?.textContent !== b, before);

  await page.getByRole("button", { name: "Mark paid" }).click();
  await page.getByTestId("status").filter({ hasText: "Paid" }).waitFor();
  await page.getByRole("button", { name: "Arrived" }).click();
  await page.getByTestId("status").filter({ hasText: "Arrived" }).waitFor();
  // The history tells who changed what: the phone's old and new number, the notes, the move.
  const history = page.getByTestId("history");
  await history.getByText("Customer details changed: Phone: +358401234567 → +358 40 999 0000").waitFor();
  for (const line of ["Booked", "Note added", "Note changed", "Note deleted", "Moved to another time", "Status: Pay on arrival → Paid", "Payment recorded"]) {
    await history.getByText(line).first().waitFor({ timeout: 3000 }).catch(async () => {
      throw new Error(`"${line}" is not in the history:\n${await history.innerText()}`);
    });
  }

  const found = await s.api.call("GET", "/api/v1/admin/bookings?customerEmail=ada@example.com");
  const detail = await s.api.call("GET", `/api/v1/admin/bookings/${found.bookings[0].bookingId}`);
  assert.equal(detail.customer.phone, "+358 40 999 0000");
  assert.equal(detail.status, "arrived");
  assert.equal(detail.notes.length, 0);
  assert.notEqual(detail.slot.slotId, where.slots[0].slotId);
  await done();
});
