// What the browser tests share: a kairos server of their own (a fresh embedded database
// with the demo tenant), Debian's Chromium driven by playwright-core, pages that fail the
// test on a script error, an error shown to the person or a 5xx from the API, axe-core
// on every page, and the API for arranging bookings the way a customer would make them.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";
import { before, after } from "node:test";

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

export const DEMO = { tenant: "demo", username: "admin", password: "kairos-demo-admin" };

async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = /** @type {import("node:net").AddressInfo} */ (srv.address());
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

/**
 * Starts `$KAIROS serve` on a free port with a fresh data directory.
 * @param {Record<string, string>} [extraEnv] more settings (KAIROS_…)
 */
export async function startServer(extraEnv = {}) {
  const binary = process.env.KAIROS;
  assert.ok(binary, "set KAIROS to the kairos binary");
  const dir = mkdtempSync(join(tmpdir(), "kairos-pages-"));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    KAIROS_DATA_DIR: join(dir, "data"),
    KAIROS_LISTEN: `127.0.0.1:${port}`,
    // The tests sign in many times a minute from one address; people do not.
    KAIROS_RATE_LIMIT_STRICT: "100",
    ...extraEnv,
  };
  for (const k of ["DATABASE_URL", "KAIROS_DATABASE_URL", "KAIROS_CONFIG", "REDIS_URL"]) delete env[k];
  const child = spawn(binary, ["serve"], { env, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) break;
    } catch {}
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`kairos did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    base,
    log: () => log,
    async stop() {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/**
 * A page whose script errors and 5xx answers are collected; `done()` asserts there were
 * none and that no error is on the screen.
 * @param {import("playwright-core").Browser} browser
 * @param {{ viewport?: {width: number, height: number} }} [options]
 */
export async function openPage(browser, options = {}) {
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 900 } });
  const page = await context.newPage();
  /** @type {string[]} */
  const problems = [];
  page.on("pageerror", (e) => problems.push(`script error: ${e.message}`));
  page.on("console", (m) => {
    // Answers are judged below by their status (4xx are often expected: a wrong password).
    if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) {
      problems.push(`console error: ${m.text()}`);
    }
  });
  page.on("response", (r) => {
    if (r.status() >= 500) problems.push(`${r.status()} from ${r.request().method()} ${r.url()}`);
  });
  return {
    page,
    context,
    /** Fails on anything collected, and on an error shown on the page. */
    async done() {
      const shown = await page.locator(".error, .notice.error").allInnerTexts();
      assert.deepEqual(problems, [], "the page had problems");
      assert.deepEqual(shown, [], "the page shows an error");
      await context.close();
    },
  };
}

/**
 * Runs axe-core on the page as it is: no serious or critical violation.
 * @param {import("playwright-core").Page} page
 * @param {string} what
 */
export async function checkA11y(page, what) {
  await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate(async () => {
    // @ts-ignore axe is what AXE_SOURCE defines
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((/** @type {any} */ v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 3).map((/** @type {any} */ n) => n.target.join(" ")),
    }));
  });
  const bad = result.filter((v) => v.impact === "serious" || v.impact === "critical");
  assert.deepEqual(bad, [], `accessibility violations on ${what}`);
}

/**
 * Saves a screenshot for the README when SCREENSHOTS is set (a directory).
 * @param {import("playwright-core").Page} page
 * @param {string} name
 */
export async function screenshot(page, name) {
  const dir = process.env.SCREENSHOTS;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`) });
}

/**
 * Signs in to the console in the page.
 * @param {import("playwright-core").Page} page
 * @param {string} base
 */
export async function signIn(page, base, user = DEMO) {
  await page.goto(`${base}/admin?tenant=${user.tenant}`);
  await page.getByLabel("Username").fill(user.username);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Day sheet" }).waitFor();
}

/** The API as an integrator calls it, for arranging what a test needs. */
export class Api {
  /** @param {string} base */
  constructor(base, tenant = DEMO.tenant) {
    this.base = base;
    this.tenant = tenant;
    this.token = "";
  }

  /**
   * @param {string} method
   * @param {string} path
   * @param {any} [body]
   * @param {Record<string, string>} [headers]
   */
  async call(method, path, body, headers = {}) {
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: {
        "x-tenant-id": this.tenant,
        ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    assert.ok(res.ok, `${method} ${path} answered ${res.status}: ${text}`);
    return text ? JSON.parse(text) : null;
  }

  async signIn(user = DEMO) {
    const r = await this.call("POST", "/api/auth/login", {
      username: user.username,
      password: user.password,
      tenantId: user.tenant,
    });
    this.token = r.access_token;
    return this;
  }

  /** The demo's first product (or the one named), its site, and the free slots of `date` (YYYY-MM-DD). */
  async slots(date, party = 2, name = "") {
    const products = await this.call("GET", "/api/v1/admin/products");
    const product = name
      ? products.items.find((/** @type {any} */ p) => p.name === name)
      : products.items[0];
    const q = new URLSearchParams({
      site_id: product.siteId,
      product_id: product.id,
      date_from: date,
      date_to: date,
      party_size: String(party),
    });
    const a = await this.call("GET", `/api/v1/availability?${q}`);
    return { product, site: product.siteId, slots: a.slots };
  }

  /**
   * A hold for `party` on a slot: its answer (id, bookingToken, pricingHash).
   * @param {{site: string, product: {id: string}}} where
   * @param {string} slotId
   */
  async hold(where, slotId, name, party = 2) {
    return this.call(
      "POST",
      "/api/v1/bookings/hold",
      {
        siteId: where.site,
        productId: where.product.id,
        slotId,
        partySize: party,
        customer: { name, email: `${name.split(" ")[0].toLowerCase()}@example.com`, phone: "+358401234567" },
      },
      { "Idempotency-Key": crypto.randomUUID() },
    );
  }

  /** Confirms a hold to pay on arrival: the booking's reference. */
  async payOnArrival(hold) {
    const r = await this.call(
      "POST",
      `/api/v1/bookings/${hold.id}/confirm`,
      { pricingHash: hold.pricingHash, paymentMethod: "poa" },
      { "x-booking-token": hold.bookingToken },
    );
    return r.reference;
  }

  /** Confirms a hold paid by the sandbox card, and waits until it is paid. */
  async payByCard(hold) {
    const r = await this.call(
      "POST",
      `/api/v1/bookings/${hold.id}/confirm`,
      { pricingHash: hold.pricingHash, paymentMethod: "cardpay" },
      { "x-booking-token": hold.bookingToken },
    );
    const res = await fetch(`${this.base}${r.payment.sandboxConfirmUrl}`, {
      method: "POST",
      body: new URLSearchParams({ client_secret: r.payment.clientSecret, payment_method: "pm_card_visa" }),
    });
    assert.ok(res.ok, `sandbox confirm answered ${res.status}`);
    for (let i = 0; i < 100; i++) {
      const b = await this.call("GET", `/api/v1/admin/bookings/${hold.id}`);
      if (b.status === "paid") return b;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error("the card payment never made the booking paid");
  }
}

/** The date `days` after today in Helsinki (the demo site's zone), YYYY-MM-DD. */
export function daysAheadInHelsinki(days) {
  const today = new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Helsinki" }).format(new Date());
  const [y, m, d] = today.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

/** Tomorrow's date in Helsinki, YYYY-MM-DD. */
export const tomorrowInHelsinki = () => daysAheadInHelsinki(1);

/**
 * Opens a setup page from the console's Setup page.
 * @param {import("playwright-core").Page} page
 * @param {string} name the page's title
 */
export async function openSetup(page, name) {
  await page.getByRole("navigation").getByRole("link", { name: "Setup" }).click();
  await page.getByRole("heading", { name: "Setup" }).waitFor();
  await setupLink(page, name).click();
}

/**
 * The Setup page's link to the page titled exactly `name`.
 * @param {import("playwright-core").Page} page
 * @param {string} name
 */
export function setupLink(page, name) {
  return page.locator("main a.card", { has: page.locator("strong", { hasText: new RegExp(`^${name}$`) }) });
}

/**
 * A test file's server, browser and signed-in API, started before its tests and stopped
 * after them: `const s = suite();` then `s.server.base`, `s.browser`, `s.api`.
 * @param {{env?: Record<string, string>, setup?: (s: {api: Api}) => Promise<void>}} [options]
 *   more settings for the server, and what to arrange once it runs
 */
export function suite(options = {}) {
  const s = /** @type {{server: Awaited<ReturnType<typeof startServer>>, browser: import("playwright-core").Browser, api: Api}} */ ({});
  before(async () => {
    s.server = await startServer(options.env);
    s.browser = await launchBrowser();
    s.api = await new Api(s.server.base).signIn();
    await options.setup?.(s);
  });
  after(async () => {
    await s.browser?.close();
    await s.server?.stop();
  });
  return s;
}
