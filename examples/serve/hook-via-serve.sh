#!/bin/sh
# A hook command that hands each event to `guardrun serve` instead of
# deciding it in a process of its own: for a host that runs a command per
# event (`HOOK generic`) and cannot hold a connection, such as the
# AgentDojo replay (../shared/agentdojo/replay.py). The first event starts
# a server for the caller's state directory (the full guardrun; it exits
# after a minute without requests); every event is then decided by it,
# exactly as `guardrun-hook generic` decides it, and the answer printed is
# that command's. The client is the slim guardrun-hook (beside this
# script, else on PATH; GUARDRUN_HOOK names another), whose start is the
# cost left per event.
#
#   hook-via-serve.sh generic < event.json
set -eu
h=${GUARDRUN_HOOK:-}
if [ -z "$h" ]; then
	h=$(dirname "$0")/guardrun-hook
	[ -x "$h" ] || h=guardrun-hook
fi
exec "$h" serve --client "$@" --spawn
