#!/usr/bin/env bash
# Keeps one mlld server on socket $1 running (restarted after a timeout).
# MLLD_CLI defaults to the build of ../shared/tools/build-mlld-peer.sh.
here=$(cd "$(dirname "$0")" && pwd)
export MLLD_CLI=${MLLD_CLI:-${XDG_CACHE_HOME:-$HOME/.cache}/mlld-peer/mlld/dist/cli.cjs}
while true; do node --no-warnings "$here/server.cjs" "$1"; sleep 0.2; done
