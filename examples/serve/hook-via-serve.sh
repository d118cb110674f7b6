#!/bin/sh
# A hook command that hands each event to `guardrun serve` instead of
# deciding it in a process of its own: for a host that runs a command per
# event (`HOOK generic`) and cannot hold a connection, such as the
# AgentDojo replay (../shared/agentdojo/replay.py). The first event starts
# a server for the caller's state directory (it exits after a minute
# without requests); every event is then decided by it, exactly as
# `guardrun-hook generic` decides it, and the answer printed is that
# command's. GUARDRUN names the guardrun binary (default: guardrun beside
# this script, else on PATH).
#
#   hook-via-serve.sh generic < event.json
set -eu
gr=${GUARDRUN:-}
if [ -z "$gr" ]; then
	gr=$(dirname "$0")/guardrun
	[ -x "$gr" ] || gr=guardrun
fi
exec "$gr" serve --client "$@" --spawn
