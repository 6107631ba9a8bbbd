#!/usr/bin/env bash
# Installs the pages' check and test tools at the exact versions of web/package-lock.json
# into web/node_modules (again only when the lock file changed). Needs Node.js and npm.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
stamp="$ROOT/web/node_modules/.lock-sha"
want=$(sha256sum "$ROOT/web/package-lock.json" | cut -d' ' -f1)
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
    printf '\n== installing the pages tools (npm ci in web/)\n'
    (cd "$ROOT/web" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    echo "$want" >"$stamp"
fi
