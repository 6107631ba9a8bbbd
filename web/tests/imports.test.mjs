// Importing vouchers in the console: a CSV with good and bad rows is checked first (what
// is wrong and where, nothing stored), then imported; the export downloads them again.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { openPage, checkA11y, signIn, openSetup, suite } from "./harness.mjs";

const s = suite();

const CSV = [
  "code,voucherType,originalValue,currentBalance,expiresAt,customerEmail,currency",
  "SPRING-25,gift_card,25,,2027-12-31,ada@example.com,EUR",
  "SPRING-50,multi_use,50,20,,,EUR",
  ",loyalty_credit,10,,,,EUR",
  "BROKEN,single_use,10,20,,,EUR",
  "NOMAIL,multi_use,10,,,not-an-email,EUR",
].join("\n");

test("a voucher CSV is checked first, then imported, then exported", async () => {
  const { page, done } = await openPage(s.browser);
  await signIn(page, s.server.base);
  await openSetup(page, "Import and export");
  await page.getByRole("heading", { name: "Import and export" }).waitFor();
  await checkA11y(page, "the import page");
  await page.locator('input[type="file"]').setInputFiles({ name: "vouchers.csv", mimeType: "text/csv", buffer: Buffer.from(CSV) });
  await page.getByRole("button", { name: "Check the file" }).click();

  const preview = page.getByTestId("import-preview");
  await preview.getByText("5 rows: 3 can be imported, 2 have problems.").waitFor();
  // The bad rows are named with what is wrong (row numbers count the header as row 1).
  await preview.locator("td", { hasText: "currentBalance" }).first().waitFor();
  await preview.locator("td", { hasText: "customerEmail" }).first().waitFor();
  await checkA11y(page, "the import preview");
  // Nothing is stored by the check.
  const before = await s.api.call("GET", "/api/v1/admin/vouchers?search=SPRING");
  assert.equal(before.items?.length ?? before.vouchers?.length ?? before.data?.length ?? 0, 0, JSON.stringify(before));

  await preview.getByRole("button", { name: "Import 3 rows" }).click();
  const result = page.getByTestId("import-result");
  await result.getByText("3 imported; 2 rows with problems were left out.").waitFor();
  const generated = (await result.locator("code").innerText()).trim();
  assert.match(generated, /^[A-Z0-9-]+$/, "a code was made for the row without one");
  const balance = await s.api.call("GET", `/api/v1/vouchers/SPRING-50/balance`);
  assert.equal(balance.voucher.currentBalance ?? balance.voucher.current_balance, 20, JSON.stringify(balance));

  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Download every one as CSV" }).click();
  const file = await (await download).path();
  const exported = readFileSync(file, "utf8");
  assert.match(exported, /SPRING-25/);
  assert.match(exported, /SPRING-50/);
  assert.match(exported, new RegExp(generated));
  await done();
});

test("staff issue a voucher with a made code and find it", async () => {
  const { page, done } = await openPage(s.browser);
  await signIn(page, s.server.base);
  await openSetup(page, "Vouchers");
  await page.getByRole("button", { name: "Issue a voucher" }).click();
  const form = page.getByRole("form", { name: "Voucher" });
  await form.getByLabel("Value").fill("30");
  await form.getByLabel("For the customer").fill("grace@example.com");
  await checkA11y(page, "the voucher form");
  await form.getByRole("button", { name: "Issue the voucher" }).click();
  const notice = page.getByRole("status").filter({ hasText: /Voucher .+ issued\./ });
  await notice.waitFor({ timeout: 5000 }).catch(async (e) => {
    throw new Error(`${e.message}\n${await page.locator("body").innerText()}`);
  });
  const code = (await notice.innerText()).replace(/^[\s\S]*Voucher (\S+) issued\.[\s\S]*$/, "$1");
  await page.getByLabel("Code", { exact: true }).fill(code);
  await page.getByRole("button", { name: "Search" }).click();
  await page.locator(`tr[data-voucher="${code}"]`).getByText("grace@example.com").waitFor();
  const balance = await s.api.call("GET", `/api/v1/vouchers/${code}/balance`);
  assert.equal(balance.voucher.currentBalance ?? balance.voucher.current_balance, 30);
  await done();
});
