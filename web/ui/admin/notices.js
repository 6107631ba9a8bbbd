// Short messages at the foot of the page: what an action did, or what went wrong.
import { html, useState, useEffect } from "../shared/ui.js";
import { t } from "../shared/i18n.js";

/** @typedef {{id: number, text: string, kind: "info" | "error"}} Notice */

/** @type {Set<(n: Notice) => void>} */
const listeners = new Set();
let next = 1;

/**
 * Shows a message; errors stay until closed, others for 6 seconds.
 * @param {string} text
 * @param {"info" | "error"} [kind]
 */
export function notify(text, kind = "info") {
  const n = { id: next++, text, kind };
  listeners.forEach((l) => l(n));
}

export function Notices() {
  const [items, setItems] = useState(/** @type {Notice[]} */ ([]));
  useEffect(() => {
    /** @param {Notice} n */
    const add = (n) => {
      setItems((list) => [...list, n]);
      if (n.kind === "info") setTimeout(() => setItems((list) => list.filter((x) => x !== n)), 6000);
    };
    listeners.add(add);
    return () => void listeners.delete(add);
  }, []);
  return html`<div class="notices" aria-live="polite">
    ${items.map(
      (n) => html`<div class=${`notice ${n.kind}`} role=${n.kind === "error" ? "alert" : "status"}>
        <span>${n.text}</span>
        <button type="button" aria-label=${t("common.close")}
          onClick=${() => setItems((list) => list.filter((x) => x !== n))}>×</button>
      </div>`,
    )}
  </div>`;
}
