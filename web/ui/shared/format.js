// Times in the site's time zone and money in its currency, by the browser's Intl.

/** The locale numbers and dates are written in: the browser's. */
export const locale = () => navigator.language || "en";

/**
 * An amount in major units, e.g. 40 EUR → "€40.00".
 * @param {number} amount
 * @param {string} currency ISO 4217
 */
export function money(amount, currency) {
  return new Intl.NumberFormat(locale(), { style: "currency", currency }).format(amount);
}

/**
 * Minor units (cents) to the same text as money().
 * @param {number} minor
 * @param {string} currency
 */
export function moneyMinor(minor, currency) {
  const digits = new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions()
    .maximumFractionDigits ?? 2;
  return money(minor / 10 ** digits, currency);
}

/**
 * The wall-clock time of an instant at a place, e.g. "10:00".
 * @param {string} instant ISO 8601
 * @param {string} timeZone IANA name
 */
export function time(instant, timeZone) {
  return new Intl.DateTimeFormat(locale(), { timeZone, hour: "2-digit", minute: "2-digit" }).format(
    new Date(instant),
  );
}

/**
 * A date and time at a place, e.g. "Sun 22 Nov 2026, 10:00".
 * @param {string} instant
 * @param {string} timeZone
 */
export function dateTime(instant, timeZone) {
  return new Intl.DateTimeFormat(locale(), {
    timeZone,
    weekday: "short",
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
  }).format(new Date(instant));
}

/**
 * A calendar date (YYYY-MM-DD) written out, e.g. "Sunday 22 November 2026".
 * @param {string} day
 */
export function longDate(day) {
  const [y, m, d] = day.split("-").map(Number);
  return new Intl.DateTimeFormat(locale(), {
    timeZone: "UTC",
    weekday: "long",
    day: "numeric",
    month: "long",
    year: "numeric",
  }).format(new Date(Date.UTC(y, m - 1, d)));
}

/**
 * The date YYYY-MM-DD `days` after `day`.
 * @param {string} day
 * @param {number} days
 */
export function addDays(day, days) {
  const [y, m, d] = day.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

/**
 * The instant (ISO 8601, UTC) of a wall-clock date and time at a place, e.g.
 * ("2026-11-22T10:00", "Europe/Helsinki") → "2026-11-22T08:00:00.000Z".
 * @param {string} local YYYY-MM-DDTHH:MM, as a datetime-local input gives it
 * @param {string} timeZone IANA name
 */
export function instantAt(local, timeZone) {
  const asUtc = new Date(`${local}:00Z`).getTime();
  /** @param {number} at the wall clock at the place as if it were UTC */
  const wall = (at) => {
    const parts = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
    }).formatToParts(new Date(at));
    const part = (/** @type {string} */ type) => Number(parts.find((p) => p.type === type)?.value);
    return Date.UTC(part("year"), part("month") - 1, part("day"), part("hour"), part("minute"));
  };
  // The offset at the guess, then again at the corrected instant (across a clock change).
  const first = asUtc - (wall(asUtc) - asUtc);
  return new Date(asUtc - (wall(first) - first)).toISOString();
}
