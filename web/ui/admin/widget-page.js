// The booking page for the venue's own website: its address, and the snippet that embeds
// it with an iframe, with a preview.
import { html, useState, useEffect } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";

/** @param {import("./main.js").PageContext} props */
export function WidgetPage({ api, session }) {
  const [sites, setSites] = useState(/** @type {{id: string, name: string}[]} */ ([]));
  const [site, setSite] = useState("");
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    ok(api.GET("/api/v1/admin/sites")).then((r) => setSites(r.items.filter((s) => s.isActive)));
  }, []);
  const url = `${location.origin}/book/${encodeURIComponent(session.tenant)}${site ? `?site=${site}` : ""}`;
  const snippet = `<iframe src="${url}" title="Book" style="width:100%;max-width:720px;height:900px;border:0"></iframe>`;
  return html`
    <h1>${t("widget.title")}</h1>
    <p>${t("widget.help")}</p>
    ${sites.length > 1
      ? html`<label>${t("day.site")}
          <select value=${site} onChange=${(/** @type {any} */ e) => setSite(e.currentTarget.value)}>
            <option value="">${t("widget.allSites")}</option>
            ${sites.map((s) => html`<option value=${s.id}>${s.name}</option>`)}
          </select></label>`
      : null}
    <p>${t("widget.address")} <a href=${url} target="_blank" rel="noopener">${url}</a></p>
    <label>${t("widget.snippet")}
      <textarea readonly rows="3" class="code" data-testid="snippet">${snippet}</textarea>
    </label>
    <p><button type="button" onClick=${() => navigator.clipboard?.writeText(snippet).then(() => setCopied(true))}>
      ${copied ? t("widget.copied") : t("widget.copy")}</button></p>
    <h2>${t("widget.preview")}</h2>
    <iframe src=${url} title=${t("widget.preview")} class="preview"></iframe>
  `;
}
