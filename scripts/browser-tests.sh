#!/usr/bin/env bash
# The pages' browser tests (web/tests/*.test.mjs): each starts its own `kairos serve` on a
# fresh embedded database with the demo tenant and drives Debian's Chromium through
# playwright-core (web/package-lock.json), with axe-core on every page. A test fails on a
# script error, an error shown on the page or a 5xx from the API. The card provider's
# test server (localstripe, scripts/localstripe.sh) is started unless TEST_CARDPAY_URL is set.
#
#   scripts/browser-tests.sh                     # uses target/debug/kairos
#   KAIROS=/path/to/kairos scripts/browser-tests.sh
#   SCREENSHOTS=docs/screenshots scripts/browser-tests.sh   # also writes the README's pictures
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
export KAIROS=${KAIROS:-$TARGET_DIR/debug/kairos}
export CHROMIUM=${CHROMIUM:-/usr/bin/chromium}

if [[ ! -x "$CHROMIUM" ]]; then
    printf '\n== installing chromium (Debian)\n'
    apt-get update -qq && apt-get install -y -qq chromium >/dev/null
fi
"$CHROMIUM" --version
bash "$ROOT/scripts/web-tools.sh"
if [[ ! -x "$KAIROS" ]]; then
    cargo build --quiet -p kairos-server --manifest-path "$ROOT/Cargo.toml"
fi
# The card provider's test server (localstripe) for the venue's-own-account card tests.
if [[ -z "${TEST_CARDPAY_URL:-}" ]]; then
    eval "$(bash "$ROOT/scripts/localstripe.sh" start)"
    trap 'bash "$ROOT/scripts/localstripe.sh" stop' EXIT
fi
if [[ -n "${SCREENSHOTS:-}" ]]; then
    SCREENSHOTS=$(cd "$ROOT" && mkdir -p "$SCREENSHOTS" && cd "$SCREENSHOTS" && pwd)
    export SCREENSHOTS
fi
cd "$ROOT/web"
node --test --test-concurrency=1 --test-reporter=spec tests/
