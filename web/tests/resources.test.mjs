// Rooms, equipment and staff in the console: a pool added, a room's time off planned in
// the site's time, and an activity made to need the pool, which availability then follows.
import { test } from "node:test";
import assert from "node:assert/strict";
import { openPage, checkA11y, signIn, openSetup, suite, tomorrowInHelsinki } from "./harness.mjs";

const s = suite();

/** The wall-clock time of an instant in Helsinki, "HH:MM". */
const helsinki = (/** @type {string} */ at) =>
  new Intl.DateTimeFormat("en-GB", { timeZone: "Europe/Helsinki", hour: "2-digit", minute: "2-digit", hourCycle: "h23" })
    .format(new Date(at));

test("an owner adds a pool, plans a room's time off and makes an activity need the pool", async () => {
  const { page, done } = await openPage(s.browser);
  await signIn(page, s.server.base);
  await openSetup(page, "Rooms, equipment and staff");
  await page.locator('tr[data-resource="Party room"]').waitFor();

  // A pool of eight pairs of climbing shoes, one per climber.
  await page.getByRole("button", { name: "Add a room, equipment or staff member" }).click();
  const form = page.getByRole("form", { name: "Room, equipment or staff member" });
  await form.getByLabel("Name", { exact: true }).fill("Climbing shoes");
  await form.getByLabel("Kind").selectOption("EQUIPMENT");
  await form.getByLabel("Used by").selectOption("POOLED");
  await form.getByLabel("How many").fill("8");
  await checkA11y(page, "the resource form");
  await form.getByRole("button", { name: "Save" }).click();
  const shoes = page.locator('tr[data-resource="Climbing shoes"]');
  await shoes.getByText("A pool of 8, one per person").waitFor();

  // The party room is out for maintenance tomorrow morning, in Helsinki time.
  const day = tomorrowInHelsinki();
  await page.locator('tr[data-resource="Party room"]').getByRole("button", { name: "Time off" }).click();
  await page.getByText("No time off planned.").waitFor();
  const off = page.getByRole("form", { name: "Add time off" });
  await off.getByLabel("Why").selectOption("maintenance");
  await off.getByLabel("From").fill(`${day}T10:00`);
  await off.getByLabel("Until").fill(`${day}T12:00`);
  await off.getByLabel("Note").fill("New floor");
  await checkA11y(page, "the time off form");
  await off.getByRole("button", { name: "Add time off" }).click();
  await page.locator('li[data-time-off="maintenance"]').getByText(/New floor/).waitFor();
  const rooms = await s.api.call("GET", "/api/v1/admin/resources");
  const room = rooms.items.find((/** @type {any} */ r) => r.name === "Party room");
  const planned = await s.api.call("GET", `/api/v1/admin/resources/${room.id}/blackouts`);
  assert.equal(planned.items.length, 1);
  assert.equal(helsinki(planned.items[0].startsAt), "10:00");
  assert.equal(helsinki(planned.items[0].endsAt), "12:00");
  assert.equal(planned.items[0].reason, "New floor");

  // Bouldering now needs a pair of shoes per climber: a party of nine finds no session.
  const before = await s.api.slots(day, 9, "Bouldering session");
  assert.ok(before.slots.length > 0, "bouldering is offered to nine before it needs shoes");
  const needs = page.locator('fieldset[data-needs="Bouldering session"]');
  await needs.getByLabel("Climbing shoes").check();
  await needs.getByRole("button", { name: "Save" }).click();
  await page.getByText("Saved: Bouldering session needs Climbing shoes.").waitFor();
  const after = await s.api.call("GET", `/api/v1/admin/products/${before.product.id}/resources`);
  assert.deepEqual(after.items.map((/** @type {any} */ n) => n.name), ["Climbing shoes"]);
  assert.equal((await s.api.slots(day, 9, "Bouldering session")).slots.length, 0);
  assert.ok((await s.api.slots(day, 8, "Bouldering session")).slots.length > 0);
  await checkA11y(page, "the rooms, equipment and staff page");
  await done();
});

test("an owner gives a certificate that runs out soon and raises what an activity asks", async () => {
  const { page, done } = await openPage(s.browser);
  await signIn(page, s.server.base);
  await openSetup(page, "Staff skills");
  await page.locator('tr[data-skill="Climbing instructor"]').waitFor();
  const mia = page.locator('li[data-staff="Mia Virtanen"]');
  await mia.getByText("Climbing instructor, level 3").waitFor();
  await page.getByText("None run out within 60 days.").waitFor();

  // Leo passes level 3; his new certificate runs out in 30 days.
  const until = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
  await page.getByRole("button", { name: "Give a skill" }).click();
  const give = page.getByRole("form", { name: "Give a skill to a staff member" });
  await give.getByLabel("Skill").selectOption({ label: "Climbing instructor" });
  await give.getByLabel("Staff member").selectOption({ label: "Leo Nieminen" });
  await give.getByLabel("Level (1 to 5)").fill("3");
  await give.getByLabel("Certificate valid until").fill(until);
  await checkA11y(page, "the give a skill form");
  await give.getByRole("button", { name: "Give a skill" }).click();
  await page.getByText("Climbing instructor given to Leo Nieminen.").waitFor();
  await page.locator('li[data-expiring="Leo Nieminen"]').getByText(/Climbing instructor, level 3/).waitFor();

  // The kids' course now asks for level 3.
  const course = page.locator(`fieldset[data-asks="Kids' climbing course"]`);
  const level = course.getByLabel("From level");
  assert.equal(await level.inputValue(), "2");
  await level.fill("3");
  await course.getByRole("button", { name: "Save" }).click();
  await page.getByText("Saved: Kids' climbing course asks for Climbing instructor, level 3.").waitFor();
  const products = await s.api.call("GET", "/api/v1/admin/products");
  const kids = products.items.find((/** @type {any} */ p) => p.name === "Kids' climbing course");
  const asks = await s.api.call("GET", `/api/v1/admin/skills/products/${kids.id}/requirements`);
  assert.deepEqual(asks.items.map((/** @type {any} */ r) => [r.skillName, r.minLevel]), [["Climbing instructor", 3]]);
  await checkA11y(page, "the staff skills page");
  await done();
});

test("an owner groups the party room and gives the group booking rules it follows", async () => {
  const { page, done } = await openPage(s.browser);
  await signIn(page, s.server.base);
  await openSetup(page, "Resource groups");
  await page.getByText("No groups yet.", { exact: false }).waitFor();
  await page.getByRole("button", { name: "Add a group" }).click();
  const form = page.getByRole("form", { name: "Resource group" });
  await form.getByLabel("Name", { exact: true }).fill("Party rooms");
  await form.getByLabel("Description").fill("Rooms for after the game");
  await form.getByRole("button", { name: "Save" }).click();
  const group = page.locator('section[data-group="Party rooms"]');
  await group.getByText("Nothing in this group yet.").waitFor();

  await group.getByLabel("Resource to put in Party rooms").selectOption({ label: "Party room" });
  await group.getByRole("button", { name: "Put in this group" }).click();
  await page.getByText("Party room is now in Party rooms.").waitFor();
  const rules = group.getByRole("form", { name: "Booking rules of Party rooms" });
  await rules.getByLabel("Minutes kept free after").fill("15");
  await rules.getByLabel("Customers may book it").selectOption("false");
  await checkA11y(page, "the resource groups page");
  await rules.getByRole("button", { name: "Save" }).click();
  await page.getByText("Rules of Party rooms saved.").waitFor();
  const member = group.locator('li[data-member="Party room"]');
  await member.getByText(/15 min after.*staff only/).waitFor();

  const rooms = await s.api.call("GET", "/api/v1/admin/resources");
  const room = rooms.items.find((/** @type {any} */ r) => r.name === "Party room");
  const effective = await s.api.call("GET", `/api/v1/admin/resource-groups/resources/${room.id}/effective-policies`);
  assert.equal(effective.groupName, "Party rooms");
  assert.equal(effective.policies.bufferAfterMins, 15);
  assert.equal(effective.policies.customerBookable, false);

  await member.getByRole("button", { name: /^Take out/ }).click();
  await page.getByText("Party room is no longer in a group.").waitFor();
  await group.getByText("Nothing in this group yet.").waitFor();
  await done();
});

test("an owner gives the party room weekly hours of its own and takes them back", async () => {
  const { page, done } = await openPage(s.browser);
  await signIn(page, s.server.base);
  const rooms = await s.api.call("GET", "/api/v1/admin/resources");
  const room = rooms.items.find((/** @type {any} */ r) => r.name === "Party room");
  await openSetup(page, "Opening hours");
  await page.getByRole("heading", { name: "Weekly hours" }).waitFor();
  await page.getByLabel("For").selectOption(`resource:${room.id}`);
  await page.getByText("These hours say when this room, piece of equipment or staff member can be used.", { exact: false }).waitFor();
  await page.getByText("No hours of its own: it can be used whenever its activities run.").waitFor();
  await page.getByRole("button", { name: "Add hours" }).click();
  const form = page.getByRole("form", { name: "Hours" });
  await form.getByLabel("Opens").fill("16:00");
  await form.getByLabel("Closes").fill("21:00");
  await checkA11y(page, "a room's opening hours");
  await form.getByRole("button", { name: "Save" }).click();
  const rule = page.locator("ul.rules li[data-template]");
  await rule.getByText(/16:00–21:00/).waitFor();
  const hours = await s.api.call("GET", `/api/v1/admin/schedules/templates?scopeType=resource&scopeId=${room.id}`);
  assert.equal(hours.items.length, 1);
  assert.equal(hours.items[0].startTime, "16:00");
  assert.equal(hours.items[0].byDay, 62);

  await rule.getByRole("button", { name: "Delete" }).click();
  await page.getByText("No hours of its own: it can be used whenever its activities run.").waitFor();
  const left = await s.api.call("GET", `/api/v1/admin/schedules/templates?scopeType=resource&scopeId=${room.id}`);
  assert.equal(left.items.length, 0);
  await done();
});
