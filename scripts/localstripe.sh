#!/usr/bin/env bash
# Starts localstripe (pinned), a Stripe-compatible test server nobody here wrote, for the
# cardpay client tests: `eval "$(scripts/localstripe.sh start)"` exports TEST_CARDPAY_URL;
# `scripts/localstripe.sh stop` stops it. Installed once into a cached virtualenv.
set -euo pipefail

LOCALSTRIPE_VERSION=1.15.10
TOOLS=${OPENAPI_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/kairos-openapi-tools}
PORT=${LOCALSTRIPE_PORT:-8420}
venv="$TOOLS/venv-localstripe-$LOCALSTRIPE_VERSION"
pidfile="$TOOLS/localstripe-$PORT.pid"

case "${1:-start}" in
start)
    if [[ ! -x "$venv/bin/localstripe" ]]; then
        echo "installing localstripe $LOCALSTRIPE_VERSION into $venv" >&2
        python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check "localstripe==$LOCALSTRIPE_VERSION"
    fi
    if [[ -f "$pidfile" ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
        kill "$(cat "$pidfile")" 2>/dev/null || true
        sleep 0.5
    fi
    # --from-scratch: no state from an earlier run.
    "$venv/bin/localstripe" --port "$PORT" --from-scratch >"$TOOLS/localstripe-$PORT.log" 2>&1 &
    echo $! >"$pidfile"
    for _ in $(seq 1 50); do
        if curl -s -o /dev/null "http://127.0.0.1:$PORT/v1/payment_intents/none"; then
            echo "export TEST_CARDPAY_URL=http://127.0.0.1:$PORT"
            exit 0
        fi
        sleep 0.2
    done
    echo "localstripe did not start; see $TOOLS/localstripe-$PORT.log" >&2
    exit 1
    ;;
stop)
    if [[ -f "$pidfile" ]]; then
        kill "$(cat "$pidfile")" 2>/dev/null || true
        rm -f "$pidfile"
    fi
    ;;
*)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
