// The staff console at /admin: sign-in, the navigation, and the page for the address.
import { html, render, useState, useEffect, useMemo, useRef } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { apiClient, ApiFailure } from "../shared/api.js";
import { loadSession, saveSession, can } from "./session.js";
import { SignIn } from "./signin.js";
import { DaySheet } from "./day-sheet.js";
import { Wizard } from "./wizard.js";
import { WidgetPage } from "./widget-page.js";
import { Bookings } from "./bookings.js";
import { Booking } from "./booking.js";
import { Imports } from "./imports.js";
import { DeadLetters, Messages } from "./problems.js";
import { Sites, Products, Staff } from "./setup.js";
import { Promotions } from "./promotions.js";
import { Schedules } from "./schedules.js";
import { Payments } from "./payments.js";
import { Templates, GiftCards } from "./messaging.js";
import { Vouchers } from "./vouchers.js";
import { Resources } from "./resources.js";
import { Skills } from "./skills.js";
import { ResourceGroups } from "./resource-groups.js";
import { Notices, notify } from "./notices.js";
import { Groups, Group } from "./groups.js";
import { NewGroup } from "./group-new.js";
import { WaiverTemplates } from "./waiver-templates.js";

/** @typedef {import("./session.js").Session} Session */
/** @typedef {import("../shared/api.js").Client} Client */

/**
 * What every page gets.
 * @typedef {object} PageContext
 * @property {Client} api
 * @property {Session} session
 * @property {(path: string) => void} go
 */

/**
 * The console's pages: address, title, component, the permission that shows it, and
 * whether it is a daily page (in the top bar) or a setup page (on the setup page).
 * @type {{path: string, title: () => string, component: any, needs?: string, parent?: string, setup?: boolean, about?: () => string}[]}
 */
const PAGES = [
  { path: "/admin", title: () => t("nav.daySheet"), component: DaySheet },
  { path: "/admin/bookings", title: () => t("nav.bookings"), component: Bookings, needs: "admin:bookings:read" },
  {
    path: "/admin/operations/bookings/new",
    title: () => t("nav.newBooking"),
    component: Wizard,
    needs: "admin:bookings:create",
  },
  { path: "/admin/booking-groups", title: () => t("nav.bookingGroups"), component: Groups, needs: "admin:bookings:read" },
  {
    path: "/admin/operations/booking-groups/new",
    title: () => t("bookingGroups.newTitle"),
    component: NewGroup,
    needs: "admin:bookings:create",
    parent: "/admin/booking-groups",
  },
  { path: "/admin/dead-letters", title: () => t("nav.dlq"), component: DeadLetters, needs: "admin:read" },
  { path: "/admin/setup", title: () => t("nav.setup"), component: SetupIndex, needs: "admin:read" },
  .../** @type {[string, import("../shared/i18n.js").Key, any, string][]} */ ([
    ["/admin/setup/sites", "nav.sites", Sites, "admin:read"],
    ["/admin/setup/products", "nav.products", Products, "admin:read"],
    ["/admin/setup/schedules", "nav.schedules", Schedules, "admin:read"],
    ["/admin/setup/resources", "nav.resources", Resources, "admin:read"],
    ["/admin/setup/resource-groups", "nav.groups", ResourceGroups, "admin:read"],
    ["/admin/setup/skills", "nav.skills", Skills, "admin:read"],
    ["/admin/promotions", "nav.promotions", Promotions, "admin:write"],
    ["/admin/vouchers", "nav.vouchers", Vouchers, "admin:write"],
    ["/admin/import-export", "nav.imports", Imports, "admin:write"],
    ["/admin/gift-cards", "nav.giftCards", GiftCards, "admin:read"],
    ["/admin/setup/waivers", "nav.waivers", WaiverTemplates, "admin:read"],
    ["/admin/templates", "nav.templates", Templates, "admin:read"],
    ["/admin/messages", "nav.messages", Messages, "admin:read"],
    ["/admin/booking-page", "nav.widget", WidgetPage, "admin:read"],
    ["/admin/setup/staff", "nav.staff", Staff, "admin:users:manage"],
    ["/admin/setup/payments", "nav.payments", Payments, "admin:payments:manage"],
  ]).map(([path, key, component, needs]) => ({
    path,
    title: () => t(key),
    about: () => t(/** @type {any} */ (`${key}.about`)),
    component,
    needs,
    setup: true,
    parent: "/admin/setup",
  })),
];

/**
 * The setup pages the user may open, each with a line on what it is for.
 * @param {{session: Session, go: (to: string) => void}} props
 */
function SetupIndex({ session, go }) {
  const pages = PAGES.filter((p) => p.setup && (!p.needs || can(session, p.needs)));
  return html`<h1>${t("nav.setup")}</h1>
    <ul class="cards">${pages.map(
      (p) => html`<li><a class="card button" href=${p.path}
        onClick=${(/** @type {MouseEvent} */ e) => (e.preventDefault(), go(p.path))}>
        <strong>${p.title()}</strong><span class="muted">${p.about?.()}</span></a></li>`,
    )}</ul>`;
}

function currentPath() {
  const path = location.pathname.replace(/\/+$/, "");
  return path === "" ? "/admin" : path;
}

function App() {
  const [session, setSession] = useState(loadSession);
  const [path, setPath] = useState(currentPath);
  // While a request waits for the person to sign in again: how to let it go on.
  const [reauthOpen, setReauthOpen] = useState(false);
  /** @type {{current: ((ok: boolean) => void) | null}} */
  const reauth = useRef(null);
  const sessionRef = useRef(session);
  sessionRef.current = session;
  /** @type {{current: Promise<boolean> | null}} */
  const pending = useRef(null);

  useEffect(() => {
    const onPop = () => setPath(currentPath());
    addEventListener("popstate", onPop);
    return () => removeEventListener("popstate", onPop);
  }, []);

  const api = useMemo(
    () =>
      apiClient({
        tenant: () => sessionRef.current?.tenant ?? "",
        token: () => sessionRef.current?.token ?? null,
        // Several requests may fail at once when the token expires: one dialog for all.
        reauthenticate: () =>
          (pending.current ??= new Promise((/** @type {(ok: boolean) => void} */ resolve) => {
            reauth.current = resolve;
            setReauthOpen(true);
          }).finally(() => {
            pending.current = null;
          })),
        onServerError: (f) => notify(t("error.server", { code: f.code }), "error"),
      }),
    [],
  );

  /** @param {Session} s */
  function signedIn(s) {
    saveSession(s);
    setSession(s);
    reauth.current?.(true);
    reauth.current = null;
    setReauthOpen(false);
  }

  function signOut() {
    saveSession(null);
    setSession(null);
    reauth.current?.(false);
    reauth.current = null;
    setReauthOpen(false);
  }

  /** @param {string} to */
  function go(to) {
    history.pushState(null, "", to);
    setPath(currentPath());
  }

  if (!session) return html`<${SignIn} onSignedIn=${signedIn} />`;
  const pages = PAGES.filter((p) => !p.needs || can(session, p.needs));
  const bookingId = /^\/admin\/bookings\/([0-9a-f-]{36})$/.exec(path)?.[1];
  const groupId = /^\/admin\/booking-groups\/([0-9a-f-]{36})$/.exec(path)?.[1];
  const page = bookingId
    ? { path, title: () => t("nav.bookings"), component: Booking, parent: "/admin/bookings" }
    : groupId
      ? { path, title: () => t("nav.bookingGroups"), component: Group, parent: "/admin/booking-groups" }
      : (pages.find((p) => p.path === path) ?? pages[0]);
  const Page = page.component;
  return html`
    <div class="shell">
      <a class="skip" href="#content">Skip to content</a>
      <header class="top">
        <span class="brand">${t("app.console")}</span>
        <nav aria-label=${t("nav.main")}>
          ${pages.filter((p) => !p.setup && !p.parent).map(
            (p) => html`<a href=${p.path} aria-current=${p === page || p.path === page.parent ? "page" : undefined}
              onClick=${(/** @type {MouseEvent} */ e) => {
                e.preventDefault();
                go(p.path);
              }}>${p.title()}</a>`,
          )}
        </nav>
        <span class="who">${t("signin.as", { name: session.username })}</span>
        <button type="button" onClick=${signOut}>${t("signin.signout")}</button>
      </header>
      <main id="content" tabindex="-1">
        <${Page} key=${page.path} api=${api} session=${session} go=${go} id=${bookingId ?? groupId} />
      </main>
      <${Notices} />
      ${reauthOpen ? html`<${SignIn} expired=${session} onSignedIn=${signedIn} onCancel=${signOut} />` : null}
    </div>
  `;
}

const root = document.getElementById("app");
if (root) render(html`<${App} />`, root);
export { ApiFailure };
