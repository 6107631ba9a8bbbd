// The pages' strings: t("key", {name: value}) looks the key up in the page's language
// (English for now) and fills {name} placeholders. Keys are checked by the type checker.
import en from "./i18n/en.js";

/** @typedef {keyof typeof en} Key */

/**
 * @param {Key} key
 * @param {Record<string, string | number>} [values]
 */
export function t(key, values) {
  const text = en[key] ?? key;
  return values ? text.replace(/\{(\w+)\}/g, (m, name) => (name in values ? String(values[name]) : m)) : text;
}
