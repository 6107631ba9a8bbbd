// The pages' benchmark: the console's first load on the demo (time until the day sheet
// shows its data, and bytes transferred, compressed) and the day sheet's render with 500
// bookings, in Debian's Chromium against `$KAIROS serve` (a release build). Each figure
// is printed next to its ceiling measured in the same run and the same browser: the
// same server's /healthz loaded as a page, and the day sheet's own JSON fetched and parsed
// in the page. Targets: first load under 1 s and under 300 KB; render under 200 ms.
import { startServer, launchBrowser, Api, DEMO, daysAheadInHelsinki } from "../tests/harness.mjs";

const RUNS = Number(process.env.RUNS ?? 7);
const BOOKINGS = 500;
const median = (/** @type {number[]} */ xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (/** @type {number} */ ms) => `${ms.toFixed(1)} ms`;

const server = await startServer({ KAIROS_RATE_LIMIT_STANDARD: "1000000", KAIROS_RATE_LIMIT_RELAXED: "1000000" });
const browser = await launchBrowser();
try {
  const api = await new Api(server.base).signIn();
  const day = daysAheadInHelsinki(5);

  // 500 bookings of one person over the day's slots of every product, round the slots
  // (beyond a slot's capacity by the owner's capacity override: the demo's day has fewer
  // than 500 places).
  const products = (await api.call("GET", "/api/v1/admin/products")).items;
  /** @type {{product: any, start: string}[]} */
  const places = [];
  for (const product of products) {
    const q = new URLSearchParams({ site_id: product.siteId, product_id: product.id, date_from: day, party_size: "1" });
    const slots = (await api.call("GET", `/api/v1/availability?${q}`)).slots;
    for (const s of slots) places.push({ product, start: s.startsAt });
  }
  if (places.length === 0) throw new Error(`no slot on ${day}`);
  const seedStart = Date.now();
  for (let i = 0; i < BOOKINGS; i += 10) {
    await Promise.all(
      Array.from({ length: 10 }, (_, j) => places[(i + j) % places.length]).map((p, j) =>
        api.call("POST", "/api/v1/admin/bookings", {
          siteId: p.product.siteId,
          productId: p.product.id,
          startTime: p.start,
          partySize: 1,
          customerInfo: { name: `Guest ${i + j}`, email: `guest${i + j}@example.com` },
          autoConfirm: true,
          bypassCapacity: true,
          sendConfirmationEmail: false,
        }),
      ),
    );
  }
  const site = products[0].siteId;
  console.log(`seeded ${BOOKINGS} bookings on ${day} in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`);

  // A signed-in tab: the session the console keeps in sessionStorage.
  const login = await api.call("POST", "/api/auth/login", {
    username: DEMO.username, password: DEMO.password, tenantId: DEMO.tenant,
  });
  const session = {
    token: login.access_token,
    expiresAt: Date.now() + login.expires_in * 1000,
    tenant: DEMO.tenant,
    userId: login.user.id,
    username: login.user.username,
    permissions: login.user.permissions,
  };
  async function tab() {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript((s) => sessionStorage.setItem("kairos.console.session", s), JSON.stringify(session));
    return { context, page: await context.newPage() };
  }

  // First load, cold cache (a new context each time), against /healthz as a page.
  const ceiling = [];
  const loads = [];
  const bytes = [];
  for (let i = 0; i < RUNS; i++) {
    const h = await tab();
    await h.page.goto(`${server.base}/healthz`, { waitUntil: "load" });
    ceiling.push(await h.page.evaluate(() => performance.now()));
    await h.context.close();
    const c = await tab();
    await c.page.goto(`${server.base}/admin?site=${site}`);
    await c.page.waitForSelector(".summary strong");
    loads.push(await c.page.evaluate(() => performance.now()));
    bytes.push(
      await c.page.evaluate(() =>
        [...performance.getEntriesByType("navigation"), ...performance.getEntriesByType("resource")].reduce(
          (sum, e) => sum + /** @type {PerformanceResourceTiming} */ (e).transferSize,
          0,
        ),
      ),
    );
    await c.context.close();
  }
  console.log("console first load (cold cache), median of", RUNS);
  console.log(`  /healthz as a page (ceiling): ${fmt(median(ceiling))}`);
  console.log(`  console until the day sheet shows: ${fmt(median(loads))} (max ${fmt(Math.max(...loads))}); target < 1000 ms: ${median(loads) < 1000 ? "met" : "NOT met"}`);
  console.log(`  bytes transferred (compressed): ${(median(bytes) / 1024).toFixed(1)} KB; target < 300 KB: ${median(bytes) < 300 * 1024 ? "met" : "NOT met"}`);

  // The day sheet with 500 bookings: switching to that day, until every row is on the
  // page, against the same sheet fetched and parsed in the page.
  const { context, page } = await tab();
  await page.goto(`${server.base}/admin?site=${site}&date=${daysAheadInHelsinki(30)}`);
  await page.waitForSelector(".summary strong");
  const url = `/api/v1/admin/day-sheet?siteId=${site}&date=${day}`;
  const fetchOnly = [];
  const shows = [];
  for (let i = 0; i < RUNS; i++) {
    fetchOnly.push(
      await page.evaluate(async ([u, token]) => {
        const t0 = performance.now();
        const r = await fetch(u, { headers: { authorization: `Bearer ${token}`, "x-tenant-id": "demo" }, cache: "no-store" });
        await r.json();
        return performance.now() - t0;
      }, [url, session.token]),
    );
    const other = daysAheadInHelsinki(30 + i + 1);
    for (const [d, rows] of [[day, BOOKINGS], [other, 0]]) {
      const took = await page.evaluate(
        ([d, rows]) =>
          new Promise((resolve) => {
            const input = /** @type {HTMLInputElement} */ (document.querySelector('input[type="date"]'));
            const t0 = performance.now();
            input.value = String(d);
            input.dispatchEvent(new Event("change", { bubbles: true }));
            const check = () => {
              const summary = document.querySelector(".summary strong")?.textContent ?? "";
              const n = document.querySelectorAll("tr[data-booking]").length;
              if (n === rows && summary && !document.querySelector('[aria-busy="true"]') &&
                  document.querySelector(".summary")?.textContent?.includes(`${rows} bookings`)) {
                resolve(performance.now() - t0);
              } else requestAnimationFrame(check);
            };
            requestAnimationFrame(check);
          }),
        [d, rows],
      );
      if (rows > 0) shows.push(/** @type {number} */ (took));
    }
  }
  await context.close();
  const render = median(shows) - median(fetchOnly);
  console.log(`day sheet with ${BOOKINGS} bookings, median of ${RUNS}`);
  console.log(`  the sheet's JSON fetched and parsed in the page (ceiling): ${fmt(median(fetchOnly))}`);
  console.log(`  switching to the day until every row shows: ${fmt(median(shows))} (max ${fmt(Math.max(...shows))})`);
  console.log(`  render (the difference): ${fmt(render)}; target < 200 ms: ${render < 200 ? "met" : "NOT met"}`);
} finally {
  await browser.close();
  await server.stop();
}
