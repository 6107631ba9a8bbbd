// A signature drawn with a finger, pen or mouse on a canvas (pointer events), given to
// the caller as a PNG data URL once something is drawn. Typing one's name is the
// signature for keyboard and screen reader users; the drawing is optional.
import { html, useRef, useEffect } from "./ui.js";
import { t } from "./i18n.js";

/**
 * @param {{onChange: (png: string | null) => void}} props
 */
export function SignaturePad({ onChange }) {
  const canvas = useRef(/** @type {HTMLCanvasElement | null} */ (null));
  const drawing = useRef(false);
  const drawn = useRef(false);

  useEffect(() => {
    const c = canvas.current;
    const g = c?.getContext("2d");
    if (!c || !g) return;
    g.lineWidth = 2.5;
    g.lineCap = "round";
    g.strokeStyle = "#111";
    /** @param {PointerEvent} e */
    const at = (e) => {
      const r = c.getBoundingClientRect();
      return [((e.clientX - r.left) * c.width) / r.width, ((e.clientY - r.top) * c.height) / r.height];
    };
    /** @param {PointerEvent} e */
    const down = (e) => {
      drawing.current = true;
      c.setPointerCapture(e.pointerId);
      const [x, y] = at(e);
      g.beginPath();
      g.moveTo(x, y);
    };
    /** @param {PointerEvent} e */
    const move = (e) => {
      if (!drawing.current) return;
      const [x, y] = at(e);
      g.lineTo(x, y);
      g.stroke();
      drawn.current = true;
    };
    const up = () => {
      if (!drawing.current) return;
      drawing.current = false;
      if (drawn.current) onChange(c.toDataURL("image/png"));
    };
    c.addEventListener("pointerdown", down);
    c.addEventListener("pointermove", move);
    c.addEventListener("pointerup", up);
    c.addEventListener("pointercancel", up);
    return () => {
      c.removeEventListener("pointerdown", down);
      c.removeEventListener("pointermove", move);
      c.removeEventListener("pointerup", up);
      c.removeEventListener("pointercancel", up);
    };
  }, []);

  function clear() {
    const c = canvas.current;
    c?.getContext("2d")?.clearRect(0, 0, c.width, c.height);
    drawn.current = false;
    onChange(null);
  }

  return html`<div class="signature-pad">
    <span id="signature-label">${t("waiver.draw")}</span>
    <canvas ref=${canvas} width="600" height="180" role="img" aria-labelledby="signature-label"
      aria-describedby="signature-help" data-testid="signature"></canvas>
    <span id="signature-help" class="muted">${t("waiver.drawHelp")}</span>
    <button type="button" onClick=${clear}>${t("waiver.clear")}</button>
  </div>`;
}
