#!/usr/bin/env bash
# The pages' UI library, vendored into web/ui/vendor from the npm registry at pinned
# versions, so that building and running Kairos needs no npm:
#   preact (the components), preact/hooks, htm (templates in tagged strings, no build
#   step) and openapi-fetch (fetch typed by the OpenAPI document's paths).
# Bare imports are rewritten to the vendored files (`from "preact"` → `./preact.mjs`),
# since the pages load ES modules without an import map (the content security policy
# allows no inline script). Each library's licence is kept next to it.
#
#   scripts/vendor-web.sh           # writes web/ui/vendor
#   scripts/vendor-web.sh --check   # fails when web/ui/vendor differs from what it would write
set -euo pipefail

PREACT_VERSION=11.2.0
HTM_VERSION=3.1.1
OPENAPI_FETCH_VERSION=0.17.0

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo '{"private": true}' >"$work/package.json"
npm install --prefix "$work" --save-exact --no-audit --no-fund --loglevel=error \
    "preact@$PREACT_VERSION" "htm@$HTM_VERSION" "openapi-fetch@$OPENAPI_FETCH_VERSION" >/dev/null
m="$work/node_modules"
out="$work/vendor"
mkdir -p "$out"
cp "$m/preact/dist/preact.mjs" "$out/preact.mjs"
sed 's/from"preact"/from"\.\/preact.mjs"/g' "$m/preact/hooks/dist/hooks.mjs" >"$out/hooks.mjs"
cp "$m/htm/dist/htm.mjs" "$out/htm.mjs"
cp "$m/openapi-fetch/dist/index.mjs" "$out/openapi-fetch.mjs"
cp "$m/preact/LICENSE" "$out/LICENSE-preact"
cp "$m/htm/LICENSE" "$out/LICENSE-htm"
cp "$m/openapi-fetch/LICENSE" "$out/LICENSE-openapi-fetch"
# Declarations for the type check (web/tsconfig.json): each file's types are its npm
# package's, installed by web/package.json at the same version.
echo 'export * from "preact";' >"$out/preact.d.mts"
echo 'export * from "preact/hooks";' >"$out/hooks.d.mts"
printf 'import htm from "htm";\nexport default htm;\n' >"$out/htm.d.mts"
printf 'export * from "openapi-fetch";\nexport { default } from "openapi-fetch";\n' >"$out/openapi-fetch.d.mts"
cat >"$out/VERSIONS" <<VERSIONS
preact $PREACT_VERSION
htm $HTM_VERSION
openapi-fetch $OPENAPI_FETCH_VERSION
VERSIONS
if grep -l 'from *"[^.]' "$out"/*.mjs; then
    echo "a vendored module still imports a bare name" >&2
    exit 1
fi
if [[ "${1:-}" == "--check" ]]; then
    if ! diff -r "$out" "$ROOT/web/ui/vendor"; then
        echo "web/ui/vendor differs from scripts/vendor-web.sh's output: run it and commit" >&2
        exit 1
    fi
    echo "web/ui/vendor matches preact $PREACT_VERSION, htm $HTM_VERSION, openapi-fetch $OPENAPI_FETCH_VERSION"
else
    rm -rf "$ROOT/web/ui/vendor"
    cp -r "$out" "$ROOT/web/ui/vendor"
    echo "wrote web/ui/vendor"
fi
