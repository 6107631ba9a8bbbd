#!/usr/bin/env bash
# The pages' benchmark (web/bench/console.mjs): the console's first load and the day
# sheet's render with 500 bookings in Debian's Chromium, against a release build, each
# figure next to its ceiling measured in the same run.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if [[ ! -x "$CHROMIUM" ]]; then
    apt-get update -qq && apt-get install -y -qq chromium >/dev/null
fi
bash "$ROOT/scripts/web-tools.sh"
cargo build --release --quiet -p kairos-server --manifest-path "$ROOT/Cargo.toml"
export KAIROS=${KAIROS:-${CARGO_TARGET_DIR:-$ROOT/target}/release/kairos}
cd "$ROOT/web"
node bench/console.mjs
