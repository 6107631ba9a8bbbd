// The UI library the pages use: Preact components written as htm templates (no build step).
import { h, render } from "../vendor/preact.mjs";
import htm from "../vendor/htm.mjs";

export { h, render };
export { useState, useEffect, useMemo, useRef, useCallback } from "../vendor/hooks.mjs";

/** Tagged template that builds Preact elements: html`<p>${text}</p>`. */
export const html = htm.bind(h);
