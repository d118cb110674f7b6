package policy

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
