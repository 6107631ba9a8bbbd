#!/usr/bin/env bash
# Checks the pages under web/ui (the staff console and the booking widget):
#   1. web/ui/vendor is exactly the pinned UI library (scripts/vendor-web.sh --check);
#   2. the pages type-check (tsc, JSDoc types) against types that openapi-typescript
#      generates from this build's OpenAPI document: a page that calls the API off its
#      contract fails here.
# The tools are the exact versions of web/package-lock.json (npm ci into web/node_modules).
#
#   scripts/check-web.sh                  # uses target/debug/kairos (builds it if missing)
#   KAIROS=/path/to/kairos scripts/check-web.sh
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
KAIROS=${KAIROS:-$TARGET_DIR/debug/kairos}
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
step() { printf '\n== %s\n' "$*"; }

bash "$ROOT/scripts/web-tools.sh"

step "vendored UI library"
bash "$ROOT/scripts/vendor-web.sh" --check

if [[ ! -x "$KAIROS" ]]; then
    step "building kairos"
    cargo build --quiet -p kairos-server --manifest-path "$ROOT/Cargo.toml"
fi
step "types from the OpenAPI document (openapi-typescript)"
mkdir -p "$ROOT/web/types"
"$KAIROS" openapi >"$ROOT/web/types/openapi.json"
"$ROOT/web/node_modules/.bin/openapi-typescript" "$ROOT/web/types/openapi.json" \
    --empty-objects-unknown -o "$ROOT/web/types/kairos.d.ts" >/dev/null
echo "web/types/kairos.d.ts: $(wc -l <"$ROOT/web/types/kairos.d.ts") lines"

step "the pages type-check against them (tsc)"
(cd "$ROOT/web" && node_modules/.bin/tsc -p tsconfig.json)
echo "pages type-check: $(find "$ROOT/web/ui" -name '*.js' -not -path '*/vendor/*' | wc -l) modules"

step "every string key is defined once (a later file of strings would silently replace an earlier one's)"
(cd "$ROOT/web" && node --input-type=module -e '
import { readdirSync } from "node:fs";
const dir = "ui/shared/i18n/en";
const seen = new Map();
const twice = [];
for (const f of readdirSync(dir).filter((f) => f.endsWith(".js")).sort()) {
  const strings = (await import(`./${dir}/${f}`)).default;
  for (const k of Object.keys(strings)) {
    if (seen.has(k)) twice.push(`${k} (${seen.get(k)} and ${f})`);
    else seen.set(k, f);
  }
}
if (twice.length) {
  console.error(`string keys defined twice: ${twice.join(", ")}`);
  process.exit(1);
}
console.log(`${seen.size} string keys, each defined once`);
')
