package policy

import "sync"

// defaultDanger are the commands mlld treats as dangerous (danger.ts,
// command entries only): a policy must opt in to each through danger or
// capabilities.danger before it may run. mlld's keychain and filesystem
// entries have no counterpart here because guardrun has neither.
var defaultDanger = []string{
	"mlld:keychain:*",
	"security:*",
	"pass:*",
	"op:*",
	"claude:*:--dangerously-skip-permissions",
	"codex:*:--dangerously-bypass-approvals-and-sandbox",
	"codex:*:--full-auto",
	"mlld:*:--no-policy",
	"mlld:*:--no-guards",
	"rm:*:-rf",
	"sudo:*",
	"chmod:*",
	"chown:*",
	"dd:*",
	"mkfs:*",
	"git:push:*:--force",
	"git:remote:add:*",
	"kill:*",
	"pkill:*",
	"killall:*",
	"curl:*:--upload-file",
	"curl:*:-T",
	"scp:*",
	"rsync:*",
	"nc:*",
}

// dangerTokens are defaultDanger's patternTokens, split once: every
// command of every checked command line is matched against all of them.
var dangerTokens = sync.OnceValue(func() [][]string {
	out := make([][]string, len(defaultDanger))
	for i, p := range defaultDanger {
		out[i] = patternTokens(p)
	}
	return out
})
