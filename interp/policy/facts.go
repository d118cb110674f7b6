package policy

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// CommandFacts is what a shell command line does, as far as the analysis
// sees it. The line is parsed as bash; Reads and Writes over-approximate
// (every argument word may name a file), because callers react only to
// words naming secret or otherwise known files.
type CommandFacts struct {
	// OpLabels, when set, are CommandLineOpLabels of the line as
	// written, from this parse (set when the line was expanded and no
	// word changed, so the two parses are the same).
	OpLabels *OpLabels
	// Commands are every simple command the line may run, wrappers
	// resolved (sudo, env, timeout, xargs, bash -c …) and git's global
	// options skipped. A wrapper is listed as well as what it runs, and
	// where a wrapper's flag may or may not take a value both readings
	// are (`sudo -u root ls` lists sudo, root and ls).
	Commands []FactCommand
	// Reads are the words that may name a file the line reads:
	// quote-removed, ~, $HOME and ${HOME} kept literally, globs raw.
	Reads []string
	// Writes are the words naming files the line writes, creates,
	// truncates, deletes or changes the mode of.
	Writes []string
	// Network is true when some command reaches the network, or a
	// redirect or word uses /dev/tcp or /dev/udp.
	Network bool
	// NetworkWhy is the part that made Network true, e.g. "curl",
	// "nslookup", "/dev/tcp redirect".
	NetworkWhy string
	// Unchecked, when non-empty, says why the line cannot be fully
	// analysed (parse error, unmodelled construct); callers fail closed.
	Unchecked string
	// Opaque, when non-empty, names a command whose program or code is
	// only known when it runs (a computed program word, `python -c`, a
	// script read from standard input): what it does is not in Reads,
	// Writes or Network. The policy's capability checks decide those
	// commands; callers treat them as opaque, not as unanalysable.
	Opaque string
	// OpaqueWords are the words, as written, of commands whose value
	// only running the line tells (a substitution of an external
	// command, a variable read or computed at run time, what xargs
	// reads, find's {}); OpaqueWhy says why the first is. Only set by
	// CommandLineFactsIn.
	OpaqueWords []string
	OpaqueWhy   string
	// Deletes are the words of Writes the line deletes, empties or wipes
	// (rm, find -delete, shred, truncate, rsync --delete, dd of=, mkfs…).
	Deletes []string
	// EnvVars are the names of the environment variables the expansion
	// read from the shell's starting environment (${!x} resolved).
	EnvVars []string
	// Expanded is the line as bash will run it: each simple command's
	// argv, quoted, one command after another ("" when nothing differs
	// from the words as written, or no ShellEnv was given).
	Expanded string
	// GitUnknown is a git subcommand the line runs that is neither one
	// of git's own nor an alias guardrun could read: an alias set after
	// the check, or a git-<name> program, runs code guardrun cannot see.
	GitUnknown string
	// RemoteDelete, when set, says how a network command deletes what
	// lives on the far side: an HTTP DELETE (`curl -X DELETE …`, `gh api
	// --method DELETE …`) or a client's delete subcommand (`gh repo
	// delete`).
	RemoteDelete string
	// RunsFetched, when set, says which command runs as its program
	// what a network command of the line downloads: piped into its input
	// (`curl … | sh`, `wget -qO- … | env python3 -`) or as a process
	// substitution (`bash <(curl …)`).
	RunsFetched string
	// Stdin are the texts the line writes into a command's standard
	// input (here-strings, here-documents), as written: a script for an
	// interpreter or a client that reads one (`tclsh <<< '…'`, `sftp
	// host <<< 'put .env'`).
	Stdin []string
}

// FactCommand is one simple command: Program is the program word's base
// name, lower-cased ("" when dynamic), Args its literal arguments (""
// for a dynamic word), Sub the subcommand for git-like programs (after
// git's global options) or "".
type FactCommand struct {
	Program string
	Args    []string
	Sub     string
	// Runs: the command runs other commands the analysis followed (a
	// wrapper's command, sh -c's or eval's known script, env -S's
	// line), which are listed on their own.
	Runs bool
	// Path is the program word when it names a file by a path
	// (`./install.sh`, `bin/tool`), as expanded; "" for a name looked up
	// in PATH.
	Path string
}

// CommandLineFacts parses line as bash and returns what it does: the
// commands it may run and the files and network it may touch.
func CommandLineFacts(line string) CommandFacts {
	return CommandLineFactsIn(line, nil)
}

// CommandLineFactsIn is CommandLineFacts for a line that runs where env
// says: each word is what bash will expand it to there (braces, tilde,
// parameters set earlier on the line or in env, builtin-only
// substitutions, globs with the options the line sets), so Reads,
// Writes and Commands hold the files and argv the line will run with.
// A word only known when the line runs is kept as written and listed in
// OpaqueWords. A nil env expands nothing.
func CommandLineFactsIn(line string, env *ShellEnv) CommandFacts {
	sl := parseShellLineIn(line, env)
	var f CommandFacts
	f.OpaqueWords, f.OpaqueWhy, f.GitUnknown, f.Stdin, f.RunsFetched = sl.opaqueWords, sl.opaqueWhy, sl.gitUnknown, sl.stdin, sl.runsFetched
	if sl.exp != nil {
		f.EnvVars = sl.exp.envRead
		f.Expanded = sl.expandedLine()
	}
	f.Unchecked = sl.unchecked
	if sl.opaque != "" {
		f.Opaque = "runs code the analysis cannot read: " + sl.opaque
	}
	if env != nil && !sl.changed && len(sl.opaqueWords) == 0 && sl.opaque == "" {
		// No word expanded to other text and none is only known when the
		// line runs: the line as written parses to what this parse
		// holds, so its operation labels are read here.
		var ol OpLabels
		ol.Union, ol.PerCommand, ol.Checked = opLabelsOf(sl)
		f.OpLabels = &ol
	}
	fa := &factsBuilder{f: &f}
	for i := range sl.cmds {
		c := &sl.cmds[i]
		for _, inv := range c.invs {
			fa.command(c, inv)
			if env == nil {
				continue
			}
			// What xargs appends and find's {} are only known when the
			// line runs.
			if inv.fed {
				f.OpaqueWords = append(f.OpaqueWords, "(the arguments xargs reads)")
				if f.OpaqueWhy == "" {
					f.OpaqueWhy = "xargs runs '" + c.raw[inv.start] + "' with arguments it reads when the line runs"
				}
			}
			if inv.found {
				for j := inv.start; j < inv.end; j++ {
					if strings.Contains(c.raw[j], "{}") {
						f.OpaqueWords = append(f.OpaqueWords, c.raw[j])
						if f.OpaqueWhy == "" {
							f.OpaqueWhy = "find runs '" + c.raw[inv.start] + "' on each path it finds ({})"
						}
					}
				}
			}
		}
	}
	// A line that runs nothing but redirections (`> file`, `: > file`,
	// `true > ~/.bash_history`) only empties what it truncates: a
	// delete, as `truncate -s0` is.
	onlyTruncates := true
	for _, c := range sl.cmds {
		if len(c.tokens) > 0 && c.tokens[0] != ":" && c.tokens[0] != "true" {
			onlyTruncates = false
		}
	}
	for _, r := range sl.redirs {
		switch r.op {
		case syntax.RdrOut, syntax.RdrClob, syntax.RdrAll, syntax.RdrAllClob:
			if onlyTruncates && !deviceSink(r.word) && !devNet(r.word) {
				fa.del(r.word)
			}
		}
		switch r.op {
		case syntax.RdrIn:
			fa.read(r.word)
		case syntax.RdrInOut:
			fa.read(r.word)
			fa.write(r.word)
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob,
			syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
			fa.write(r.word)
		case syntax.DplOut, syntax.DplIn:
			// >&file (not a descriptor number or -) writes the file.
			if r.word != "-" && !allDigits(strings.TrimSuffix(r.word, "-")) {
				if r.op == syntax.DplOut {
					fa.write(r.word)
				} else {
					fa.read(r.word)
				}
			}
		}
		if devNet(r.word) {
			fa.network(devNetName(r.word) + " redirect")
		}
	}
	for _, w := range sl.words {
		if devNet(w) {
			fa.network(devNetName(w))
		}
	}
	return f
}

// devNet reports a word naming bash's /dev/tcp or /dev/udp.
func devNet(w string) bool {
	return strings.Contains(w, "/dev/tcp/") || strings.Contains(w, "/dev/udp/")
}

func devNetName(w string) string {
	if strings.Contains(w, "/dev/tcp/") {
		return "/dev/tcp"
	}
	return "/dev/udp"
}

// factsBuilder fills a CommandFacts, keeping each word once.
type factsBuilder struct {
	f *CommandFacts
}

func (fa *factsBuilder) read(w string) {
	if w != "" && w != "-" && !slices.Contains(fa.f.Reads, w) {
		if fa.f.Reads == nil {
			// Most lines read a few words: one allocation for them.
			fa.f.Reads = make([]string, 0, 4)
		}
		fa.f.Reads = append(fa.f.Reads, w)
	}
}

// del records a word the line deletes (it is a write too).
func (fa *factsBuilder) del(w string) {
	fa.write(w)
	if w != "" && w != "-" && !slices.Contains(fa.f.Deletes, w) {
		fa.f.Deletes = append(fa.f.Deletes, w)
	}
}

func (fa *factsBuilder) write(w string) {
	if w != "" && w != "-" && !slices.Contains(fa.f.Writes, w) {
		fa.f.Writes = append(fa.f.Writes, w)
	}
}

func (fa *factsBuilder) network(why string) {
	if !fa.f.Network {
		fa.f.Network, fa.f.NetworkWhy = true, why
	}
}

// command adds the facts of one invocation.
func (fa *factsBuilder) command(c *simpleCmd, inv invocation) {
	fc := FactCommand{}
	if !c.dyn[inv.start] {
		fc.Program = c.tokens[inv.start]
		if strings.Contains(c.raw[inv.start], "/") {
			fc.Path = c.raw[inv.start]
		}
	}
	args := make([]string, 0, inv.end-inv.start-1)
	for i := inv.start + 1; i < inv.end; i++ {
		if c.dyn[i] {
			args = append(args, "")
		} else {
			args = append(args, c.raw[i])
		}
	}
	fc.Args = args
	prog := fc.Program
	if Is(prog, Subcommand) {
		first := inv.start + 1
		if inv.sub > first {
			first = inv.sub
		}
		for i := first; i < inv.end; i++ {
			if prog != "git" && strings.HasPrefix(c.raw[i], "-") {
				continue
			}
			if !c.dyn[i] {
				fc.Sub = strings.ToLower(c.raw[i])
			}
			break
		}
	}
	if _, ok := shellScript(c, inv); ok && !c.dyn[inv.start] {
		fc.Runs = true
	}
	for _, o := range c.invs {
		if o.start > inv.start && o.end <= inv.end && Is(prog, Wrapper) {
			fc.Runs = true
		}
	}
	fa.f.Commands = append(fa.f.Commands, fc)

	// Reads: every argument word may name a file.
	raw := c.raw[inv.start+1 : inv.end]
	own := raw
	for _, o := range c.invs {
		// A command another runs (`sudo curl https://x.io`, `find . -exec
		// cat {} +`) reads as its own program does: the outer one's
		// words are those before it.
		if o.start > inv.start && o.end <= inv.end && o.start-inv.start-1 < len(own) {
			own = raw[:o.start-inv.start-1]
		}
	}
	urls := Is(prog, URLClient)
	// read records a word that may name a file; a URL names one only
	// with file:// (file:///etc/passwd, file://localhost/etc/passwd),
	// whichever program opens it, and to a URL client a URL is fetched,
	// no word of it a file (its query's `a=b` included), and `@file` is
	// the file after the '@' (read below: `curl -d @body.json`, -d@…),
	// not one so named.
	read := func(w string) (url bool) {
		scheme, rest, ok := urlWord(w)
		if ok && scheme == "file" {
			if i := strings.IndexByte(rest, '/'); i >= 0 {
				fa.read(rest[i:])
			}
		}
		if ok && urls {
			return true
		}
		if !urls || !strings.HasPrefix(w, "@") {
			fa.read(w)
		}
		return false
	}
	for _, w := range own {
		switch {
		case !strings.HasPrefix(w, "-") || w == "-":
			if read(w) {
				continue
			}
			if _, v, ok := strings.Cut(w, "="); ok {
				// NAME=file, as make and many tools take it.
				read(v)
			}
			if pre, v, ok := strings.Cut(w, ":"); ok && (prog == "git" || addressType(pre) && !strings.HasPrefix(v, "//")) {
				// git show REV:path reads path from history; socat
				// FILE:path, OPEN:path,rdonly and the like name a file
				// after their address type, options after a comma.
				fa.read(v)
				if prog != "git" {
					if p, _, ok := strings.Cut(v, ","); ok {
						fa.read(p)
					}
				}
			}
		default:
			if _, v, ok := strings.Cut(w, "="); ok && read(v) {
				// --url=https://x.io
				continue
			}
			if len(w) > 2 && w[1] != '-' {
				// -ofile, -Tfile: a short option's glued value.
				read(w[2:])
			}
		}
		if _, v, ok := strings.Cut(w, "@"); ok {
			if end := strings.IndexAny(v, ";,"); end >= 0 {
				v = v[:end]
			}
			read(v)
		}
	}
	fa.writes(prog, fc.Sub, raw)
	fa.net(prog, fc.Sub, raw)
	if !Is(prog, DeviceReader) && !Is(prog, Wrapper) {
		// A disk handed to a program guardrun does not know to only
		// read disks (`nvme format /dev/nvme0n1`, `badblocks -w`,
		// `cryptsetup luksFormat`, dcfldd's of=) may be overwritten:
		// it is deleted. A wrapper's command decides for itself.
		for _, w := range raw {
			if _, v, ok := strings.Cut(w, "="); ok && blockDevice(v) {
				fa.del(v)
			} else if blockDevice(w) {
				fa.del(w)
			}
		}
	}
}

// urlWord splits a word spelt as a URL, scheme://rest, the scheme
// lower-cased: a letter, then letters, digits, '+', '-' or '.'.
func urlWord(w string) (scheme, rest string, ok bool) {
	i := strings.Index(w, "://")
	if i < 1 {
		return "", "", false
	}
	for j := 0; j < i; j++ {
		c := w[j] | 0x20
		if c >= 'a' && c <= 'z' || j > 0 && (w[j] >= '0' && w[j] <= '9' || w[j] == '+' || w[j] == '-' || w[j] == '.') {
			continue
		}
		return "", "", false
	}
	return strings.ToLower(w[:i]), w[i+3:], true
}

// blockDevice reports a path naming a disk, a partition or a volume
// (/dev/sda1, /dev/nvme0n1, /dev/mapper/…, /dev/disk/by-id/…).
func blockDevice(p string) bool {
	name, ok := strings.CutPrefix(p, "/dev/")
	if !ok {
		return false
	}
	for _, pre := range []string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "md", "dm-", "loop", "sg", "sr", "mapper/", "disk/", "nbd", "rbd", "zd"} {
		if strings.HasPrefix(name, pre) {
			return true
		}
	}
	return false
}

// addressType reports a word's prefix before a colon that names the
// kind of what follows (socat's FILE, OPEN, GOPEN, CREATE; a scheme):
// two or more ASCII letters.
func addressType(pre string) bool {
	if len(pre) < 2 {
		return false
	}
	for i := 0; i < len(pre); i++ {
		if c := pre[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// operands are the words of args not starting with '-'.
func operands(args []string) []string {
	var out []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") || a == "-" {
			out = append(out, a)
		}
	}
	return out
}

// optValue returns the values of option short (-o x, -ox) or long
// (--output x, --output=x) in args.
func optValue(args []string, short, long string) []string {
	var out []string
	for i, a := range args {
		switch {
		case a == short || (long != "" && a == long):
			if i+1 < len(args) {
				out = append(out, args[i+1])
			}
		case long != "" && strings.HasPrefix(a, long+"="):
			out = append(out, a[len(long)+1:])
		case short != "" && len(short) == 2 && strings.HasPrefix(a, short) && len(a) > 2 && a[1] != '-':
			out = append(out, a[2:])
		}
	}
	return out
}

// hasFlag reports a short flag letter set in some cluster (-xvf) or a
// long flag (--delete) among args.
func hasFlag(args []string, letter byte, long string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if long != "" && (a == long || strings.HasPrefix(a, long+"=")) {
			return true
		}
		if letter != 0 && len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], letter) >= 0 {
			return true
		}
	}
	return false
}

// writes adds the files a command writes.
func (fa *factsBuilder) writes(prog, sub string, args []string) {
	ops := operands(args)
	all := func(ws []string) {
		for _, w := range ws {
			fa.write(w)
		}
	}
	if Is(prog, Deleter) {
		for _, w := range ops {
			fa.del(w)
		}
	}
	switch prog {
	case "mkfs", "mke2fs", "mkswap", "sgdisk", "sfdisk", "fdisk", "parted":
		for _, w := range ops {
			if strings.HasPrefix(w, "/dev/") {
				fa.del(w)
			}
		}
	}
	if strings.HasPrefix(prog, "mkfs.") {
		for _, w := range ops {
			fa.del(w)
		}
	}
	switch prog {
	case "tee", "truncate", "rm", "unlink", "shred", "rmdir", "srm", "touch", "mkdir",
		"chmod", "chown", "chgrp", "chattr", "setfacl", "patch", "mkfifo", "mknod":
		all(ops)
		all(optValue(args, "-o", "--output"))
		all(optValue(args, "", "--reference"))
	case "link":
		// link FILE NEW: the new name writes the file.
		all(ops)
	case "cp", "mv", "install", "ln", "rsync":
		if prog == "ln" && !hasFlag(args, 's', "--symbolic") || prog == "cp" && (hasFlag(args, 'l', "--link")) {
			// A hard link is a second name for the file: making one is a
			// write of the file it links to.
			all(ops)
		}
		if len(ops) > 0 {
			if prog == "rsync" && (hasFlag(args, 0, "--delete") || slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--delete") })) {
				fa.del(ops[len(ops)-1])
			}
			fa.write(ops[len(ops)-1])
		}
		all(optValue(args, "-t", "--target-directory"))
	case "sed", "perl", "ruby", "gsed":
		if hasFlag(args, 'i', "--in-place") {
			all(ops)
		}
	case "dd":
		for _, a := range args {
			if v, ok := strings.CutPrefix(a, "of="); ok {
				if strings.HasPrefix(v, "/dev/") && !deviceSink(v) {
					fa.del(v)
				}
				fa.write(v)
			}
		}
	case "find":
		deletes := false
		for i, a := range args {
			if a == "-delete" {
				deletes = true
			}
			if findExec(a) && i+1 < len(args) {
				switch normalizeToken(args[i+1]) {
				case "rm", "unlink", "shred", "rmdir", "mv", "truncate", "chmod", "chown", "tee", "cp", "sed", "dd":
					deletes = true
				}
			}
		}
		if deletes {
			for _, a := range args {
				if strings.HasPrefix(a, "-") || a == "(" || a == "!" {
					break
				}
				fa.del(a)
			}
		}
		all(optValue(args, "", "-fprint"))
	case "curl":
		all(optValue(args, "-o", "--output"))
		all(optValue(args, "-c", "--cookie-jar"))
		all(optValue(args, "-D", "--dump-header"))
	case "wget":
		all(optValue(args, "-O", "--output-document"))
		all(optValue(args, "-o", "--output-file"))
		all(optValue(args, "-P", "--directory-prefix"))
	case "tar", "bsdtar", "gtar":
		mode := ""
		if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
			mode = args[0] // tar xzf archive
		}
		switch {
		case hasFlag(args, 'x', "--extract") || strings.ContainsAny(mode, "x"):
			dirs := optValue(args, "-C", "--directory")
			if len(dirs) == 0 {
				dirs = []string{"."}
			}
			all(dirs)
		case hasFlag(args, 'c', "--create") || hasFlag(args, 'r', "--append") || hasFlag(args, 'u', "--update") || strings.ContainsAny(mode, "cru"):
			all(optValue(args, "-f", "--file"))
			for i, a := range args {
				// -f in a cluster (`tar -czf out.tgz dir`): the archive is
				// the rest of the cluster, or the next word.
				if a == "--" {
					break
				}
				if len(a) > 2 && a[0] == '-' && a[1] != '-' && a[1] != 'f' {
					if j := strings.IndexByte(a, 'f'); j == len(a)-1 && i+1 < len(args) {
						fa.write(args[i+1])
					} else if j > 0 {
						fa.write(a[j+1:])
					}
				}
			}
			if mode != "" && strings.Contains(mode, "f") && len(args) > 1 {
				fa.write(args[1])
			}
		}
	case "unzip":
		all(optValue(args, "-d", ""))
	case "zip", "7z", "7za", "rar":
		// zip ARCHIVE FILES…, 7z a ARCHIVE FILES…: the archive is written.
		if prog != "zip" && len(ops) > 1 {
			ops = ops[1:]
		}
		if len(ops) > 0 {
			fa.write(ops[0])
		}
	case "git":
		if sub == "clone" {
			ops := operands(args)
			for i, o := range ops {
				if strings.EqualFold(o, "clone") && i+2 < len(ops) {
					fa.write(ops[i+2])
				}
			}
		}
	}
}

// net marks a command that reaches the network.
func (fa *factsBuilder) net(prog, sub string, args []string) {
	switch {
	case Is(prog, Network):
		fa.network(prog)
		if why := remoteDelete(prog, args); why != "" && fa.f.RemoteDelete == "" {
			fa.f.RemoteDelete = why
		}
	case Is(prog, Remote):
		for _, a := range operands(args) {
			if strings.Contains(a, ":") {
				fa.network(prog + " to a remote host")
			}
		}
	case prog == "openssl" && (sub == "s_client" || sub == "s_server" || sub == "ocsp"):
		fa.network("openssl " + sub)
	case prog == "git":
		switch sub {
		case "push", "fetch", "pull", "clone", "ls-remote", "send-email", "archive":
			fa.network("git " + sub)
		case "remote", "submodule":
			for _, a := range args {
				if a == "update" || a == "add" || a == "set-url" || a == "prune" || a == "show" {
					fa.network("git " + sub + " " + a)
				}
			}
		}
	case (prog == "npm" || prog == "yarn" || prog == "pnpm" || prog == "bun") && (sub == "publish" || sub == "login" || sub == "adduser"):
		fa.network(prog + " " + sub)
	case (prog == "docker" || prog == "podman") && (sub == "push" || sub == "login"):
		fa.network(prog + " " + sub)
	case fetchesPackages(prog, sub):
		fa.network(prog + " " + sub + " downloads packages")
	}
}

// remoteDelete says how a network program's arguments delete what lives
// on the far side ("" when they do not): an HTTP DELETE, however the
// method is spelt (`curl -X DELETE`, `-XDELETE`, `--request=delete`,
// `gh api --method DELETE`, httpie's `http DELETE URL`), or a client's
// delete subcommand (`gh repo delete`, `gh release delete`).
func remoteDelete(prog string, args []string) string {
	// The method: -X (curl, gh) or --request, and gh's --method.
	for _, v := range append(optValue(args, "-X", "--request"), optValue(args, "", "--method")...) {
		if strings.EqualFold(strings.TrimPrefix(v, "="), "delete") {
			return prog + " sends an HTTP DELETE"
		}
	}
	ops := operands(args)
	switch {
	case (prog == "http" || prog == "https" || prog == "xh" || prog == "httpie") && len(ops) > 0 && strings.EqualFold(ops[0], "delete"):
		return prog + " sends an HTTP DELETE"
	case prog == "gh" && len(ops) > 1 && ops[0] != "api":
		for _, o := range ops[1:min(len(ops), 3)] {
			if o == "delete" || o == "item-delete" || o == "field-delete" {
				return "gh " + ops[0] + " " + o
			}
		}
	}
	return ""
}

// packageFetches are the subcommands with which a package manager
// downloads packages (and often runs their install scripts): they reach
// the network whatever they are asked to install.
var packageFetches = map[string][]string{
	"npm":      {"install", "i", "ci", "add", "update", "up", "upgrade", "exec", "x", "create", "init"},
	"yarn":     {"install", "add", "upgrade", "up", "dlx", "create"},
	"pnpm":     {"install", "i", "add", "update", "up", "dlx", "create"},
	"bun":      {"install", "i", "add", "update", "create", "x"},
	"pip":      {"install", "download"},
	"pip3":     {"install", "download"},
	"pipx":     {"install", "run"},
	"uv":       {"add", "sync", "lock"},
	"poetry":   {"add", "install", "update", "lock"},
	"cargo":    {"install", "add", "fetch", "update"},
	"go":       {"get", "install"},
	"gem":      {"install", "update"},
	"bundle":   {"install", "update", "add"},
	"composer": {"install", "require", "update", "create-project"},
	"apt":      {"install", "update", "upgrade"},
	"apt-get":  {"install", "update", "upgrade", "dist-upgrade"},
	"brew":     {"install", "update", "upgrade", "tap"},
	"dnf":      {"install", "update", "upgrade"},
	"yum":      {"install", "update"},
	"apk":      {"add", "update", "upgrade"},
	"conda":    {"install", "update", "create"},
	"docker":   {"pull"},
	"podman":   {"pull"},
}

// fetchesPackages reports whether prog sub downloads packages.
func fetchesPackages(prog, sub string) bool {
	for _, s := range packageFetches[prog] {
		if s == sub {
			return true
		}
	}
	return false
}

// deviceSink reports a device file writing to which destroys nothing.
func deviceSink(p string) bool {
	switch p {
	case "/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/full":
		return true
	}
	return strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/dev/tcp/") || strings.HasPrefix(p, "/dev/udp/")
}
