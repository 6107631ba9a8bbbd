// The signed-in staff member: the token from POST /api/auth/login, kept in this tab's
// sessionStorage (gone when the tab closes), and the venue id remembered for next time.

const KEY = "kairos.console.session";
const TENANT_KEY = "kairos.console.tenant";

/**
 * @typedef {object} Session
 * @property {string} token
 * @property {number} expiresAt milliseconds since the epoch
 * @property {string} tenant
 * @property {string} userId
 * @property {string} username
 * @property {string[]} permissions
 */

/** @returns {Session | null} */
export function loadSession() {
  try {
    const raw = sessionStorage.getItem(KEY);
    return raw ? /** @type {Session} */ (JSON.parse(raw)) : null;
  } catch {
    return null;
  }
}

/** @param {Session | null} session */
export function saveSession(session) {
  if (session) {
    sessionStorage.setItem(KEY, JSON.stringify(session));
    localStorage.setItem(TENANT_KEY, session.tenant);
  } else {
    sessionStorage.removeItem(KEY);
  }
}

/** The venue id last signed in to, or the one in the page's address (?tenant=). */
export function rememberedTenant() {
  return new URLSearchParams(location.search).get("tenant") ?? localStorage.getItem(TENANT_KEY) ?? "";
}

/**
 * Whether the session's user holds a permission.
 * @param {Session | null} session
 * @param {string} permission e.g. admin:bookings:write
 */
export function can(session, permission) {
  return !!session && session.permissions.includes(permission);
}
