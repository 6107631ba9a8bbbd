// Importing and exporting promotions and vouchers as CSV (spec Part A 4.9): a file is
// checked first (nothing stored: totals, what is wrong and where, the first rows), then
// imported when the person agrees; exports download every matching row.
import { html, useState } from "../shared/ui.js";
import { t } from "../shared/i18n.js";
import { ok } from "../shared/api.js";
import { can } from "./session.js";
import { notify } from "./notices.js";

/** @typedef {import("../shared/api.js").Schemas} Schemas */

/** @param {import("./main.js").PageContext} props */
export function Imports({ api, session }) {
  const [kind, setKind] = useState(/** @type {"promotions" | "vouchers"} */ ("vouchers"));
  const [file, setFile] = useState(/** @type {File | null} */ (null));
  const [preview, setPreview] = useState(/** @type {Schemas["PreviewResponse"] | null} */ (null));
  const [result, setResult] = useState(/** @type {Schemas["ExecuteResponse"] | null} */ (null));
  const [busy, setBusy] = useState(/** @type {string | null} */ (null));
  const [error, setError] = useState("");
  const mayWrite = can(session, "admin:write");

  /** The file as the multipart body the import endpoints read. */
  const upload = () => ({
    body: /** @type {any} */ ({}),
    bodySerializer: () => {
      const form = new FormData();
      if (file) form.append("file", file);
      return form;
    },
  });

  async function check() {
    setBusy(t("import.checking", { size: Math.ceil((file?.size ?? 0) / 1024) }));
    setError("");
    setResult(null);
    try {
      setPreview(
        kind === "vouchers"
          ? await ok(api.POST("/api/v1/admin/vouchers/import/preview", upload()))
          : await ok(api.POST("/api/v1/admin/promotions/import/preview", upload())),
      );
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
    setBusy(null);
  }

  async function run() {
    setBusy(t("import.importing", { n: preview?.validRows ?? 0 }));
    setError("");
    try {
      const done =
        kind === "vouchers"
          ? await ok(api.POST("/api/v1/admin/vouchers/import", upload()))
          : await ok(api.POST("/api/v1/admin/promotions/import", upload()));
      setResult(done);
      setPreview(null);
      notify(t("import.done", { n: done.successCount }));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
    setBusy(null);
  }

  async function download() {
    setError("");
    try {
      const { data, response } =
        kind === "vouchers"
          ? await api.GET("/api/v1/admin/vouchers/export", { params: { query: { format: "csv" } }, parseAs: "blob" })
          : await api.GET("/api/v1/admin/promotions/export", { params: { query: { format: "csv" } }, parseAs: "blob" });
      if (!response.ok || !(data instanceof Blob)) throw new Error(t("import.exportFailed"));
      const blob = data;
      const a = document.createElement("a");
      a.href = URL.createObjectURL(blob);
      a.download = `${kind}-${new Date().toISOString().slice(0, 10)}.csv`;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }

  return html`
    <h1>${t("import.title")}</h1>
    <fieldset class="choices row">
      <legend>${t("import.what")}</legend>
      ${["vouchers", "promotions"].map(
        (k) => html`<label class="choice"><input type="radio" name="kind" checked=${kind === k}
          onChange=${() => (setKind(/** @type {any} */ (k)), setPreview(null), setResult(null))} />
          <span>${t(/** @type {any} */ (`import.${k}`))}</span></label>`,
      )}
    </fieldset>
    <section aria-labelledby="export-title">
      <h2 id="export-title">${t("import.exportTitle")}</h2>
      <button type="button" onClick=${download}>${t("import.export")}</button>
    </section>
    ${mayWrite
      ? html`<section aria-labelledby="import-title">
          <h2 id="import-title">${t("import.importTitle")}</h2>
          <p class="muted">${t(/** @type {any} */ (`import.columns.${kind}`))}</p>
          <div class="row">
            <label>${t("import.file")}<input type="file" accept=".csv,text/csv"
              onChange=${(/** @type {any} */ e) => (setFile(e.currentTarget.files?.[0] ?? null), setPreview(null), setResult(null))} /></label>
            <button type="button" class="primary" disabled=${!file || !!busy} onClick=${check}>${t("import.check")}</button>
          </div>
        </section>`
      : html`<p>${t("error.forbidden")}</p>`}
    ${busy ? html`<p aria-busy="true" role="status">${busy}</p>` : null}
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    ${preview ? html`<${Preview} preview=${preview} run=${run} busy=${!!busy} />` : null}
    ${result
      ? html`<section aria-labelledby="result-title" data-testid="import-result">
          <h2 id="result-title">${t("import.resultTitle")}</h2>
          <p>${t("import.result", { ok: result.successCount, failed: result.failureCount })}
            ${result.skippedCount > 0 ? t("import.skipped", { n: result.skippedCount }) : ""}</p>
          ${(result.generatedCodes ?? []).length > 0
            ? html`<p>${t("import.generated")} <code>${(result.generatedCodes ?? []).map((c) => c.code).join(", ")}</code></p>`
            : null}
        </section>`
      : null}
  `;
}

/**
 * What a file would import, and what is wrong with it.
 * @param {{preview: Schemas["PreviewResponse"], run: () => void, busy: boolean}} props
 */
function Preview({ preview, run, busy }) {
  const bad = preview.preview.filter((r) => !r.isValid);
  return html`<section aria-labelledby="preview-title" data-testid="import-preview">
    <h2 id="preview-title">${t("import.previewTitle")}</h2>
    <p><strong>${t("import.counts", { total: preview.totalRows, valid: preview.validRows, invalid: preview.invalidRows })}</strong></p>
    ${preview.errorSummary.length > 0
      ? html`<ul>${preview.errorSummary.map(
          (e) => html`<li>${t("import.errorLine", { field: e.field, type: e.errorType, n: e.count, rows: e.affectedRows.slice(0, 10).join(", ") })}</li>`,
        )}</ul>`
      : null}
    ${preview.duplicateCodes.length > 0 ? html`<p class="note">${t("import.duplicates", { n: preview.duplicateCodes.length })}</p>` : null}
    ${preview.warnings.map((w) => html`<p class="note">${w}</p>`)}
    ${bad.length > 0
      ? html`<table class="bookings"><thead><tr><th scope="col">${t("import.row")}</th><th scope="col">${t("import.problems")}</th></tr></thead>
          <tbody>${bad.map(
            (r) => html`<tr><td>${r.rowNumber}</td><td>${r.errors.map((e) => html`<div>${e.field}: ${e.message}</div>`)}</td></tr>`,
          )}</tbody></table>`
      : null}
    <div class="buttons">
      <button type="button" class="primary" disabled=${!preview.canProceed || busy} onClick=${run}>
        ${t("import.run", { n: preview.validRows })}</button>
    </div>
  </section>`;
}
