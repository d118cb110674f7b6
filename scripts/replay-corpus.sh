#!/bin/sh
# Replays the decision log the agent corpus left (run.sh with
# AGENT_CORPUS_KEEP=1) against the policy that made it, in the hook's
# directories: `guardrun log --replay` must report 0 changed decisions
# (issue 40). Exits 1 when any changed, 2 when there is nothing to replay.
#
#   replay-corpus.sh GUARDRUN_BINARY CORPUS_TMP_DIR
if [ "$#" -ne 2 ]; then
  echo "usage: replay-corpus.sh GUARDRUN_BINARY CORPUS_TMP_DIR" >&2
  exit 2
fi
guardrun=$1
home=$2/home
log=$home/.local/state/guardrun/decisions.jsonl
policy=$home/.config/guardrun/policy.guard
if [ ! -f "$log" ] || [ ! -f "$policy" ]; then
  echo "corpus replay: no log or policy under $2" >&2
  exit 2
fi
out=$(env HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_STATE_HOME="$home/.local/state" XDG_CACHE_HOME="$home/.cache" \
  "$guardrun" log --replay "$log" --policy "$policy")
rc=$?
printf '%s\n' "$out" | grep '^changed' || true
printf 'corpus replay: %s\n' "$(printf '%s\n' "$out" | tail -n 1)"
exit $rc
