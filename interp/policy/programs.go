package policy

import (
	"fmt"
	"slices"
	"strings"
)

// Kind is one class of what a program does, as the effects of a command
// line are read (facts.go) and as the agent engine and the hook's
// confinement decide on them. A program may be of several kinds.
type Kind uint16

// The kinds of program, one bit each.
const (
	// Network: reaches the network whatever its arguments.
	Network Kind = 1 << iota
	// Local: only reads, prints or moves data on this machine, so a
	// secret handed to it stays under the policy's eyes.
	Local
	// Interpreter: runs code from its command line or from a file whose
	// text the line does not show (a build tool or task runner too).
	Interpreter
	// Wrapper: runs the words after its options as a command.
	Wrapper
	// Subcommand: its first operand is a subcommand (`git push`).
	Subcommand
	// Deleter: deletes, empties or wipes its operands.
	Deleter
	// Reader: prints the files it is given.
	Reader
	// EnvConsumer: loads an env file into a container it runs.
	EnvConsumer
	// TreeRemover: deleting or moving a directory takes what it holds.
	TreeRemover
	// Shell: runs the script it is given (`sh -c`, `watch CMD`).
	Shell
	// Remote: reaches the network when an operand names a remote host
	// (`rsync a host:b`).
	Remote
	// DeviceReader: only reads or inspects the disks it is given
	// (`lsblk /dev/sda`); any other program handed a disk may overwrite
	// it (facts.go: blockDevice).
	DeviceReader
	// URLClient: its operands are URLs, and a URL names no local file
	// but a file:// one (`curl https://x.io` opens nothing here); a word
	// starting with '@' is a file after the '@' (`curl -d @body.json`,
	// `http POST x.io @body.json`), never a file so named.
	URLClient
)

// kindNames are the kinds as the effects table in docs/reference/tools.md
// names them, in bit order.
var kindNames = []string{"network", "local", "interpreter", "wrapper", "subcommand", "deletes", "reader", "env-file", "tree", "shell", "remote", "disk-reader", "url-client"}

// String is the kind's names, joined by "+".
func (k Kind) String() string {
	var out []string
	for i, n := range kindNames {
		if k&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return strings.Join(out, "+")
}

// programs is the one table of what guardrun knows of each program.
// What a program's arguments mean (which option names an output file, a
// remote host, a delete) is in facts.go's writes and net, keyed by the
// same names. A program with no entry gets the worst case of what it is
// handed: every operand that names a file is read, and it may send what
// it reads (docs/reference/tools.md).
var programs = map[string]Kind{
	// The network.
	"curl": Network | URLClient, "wget": Network | URLClient, "nc": Network, "ncat": Network, "netcat": Network, "socat": Network,
	"ssh": Network, "scp": Network, "sftp": Network, "ftp": Network, "tftp": Network, "telnet": Network,
	"http": Network | URLClient, "https": Network | URLClient, "xh": Network | URLClient, "httpie": Network | URLClient,
	"gh": Network | Subcommand, "nslookup": Network, "dig": Network, "host": Network, "drill": Network, "ping": Network, "ping6": Network,
	"aria2c": Network | URLClient, "lynx": Network | URLClient, "w3m": Network | URLClient,

	// Local data only.
	"cat": Local | Reader, "tac": Local | Reader, "nl": Local | Reader, "head": Local | Reader, "tail": Local | Reader,
	"less": Local | Reader, "more": Local | Reader, "bat": Reader, "batcat": Reader,
	"grep": Local, "egrep": Local, "fgrep": Local, "rg": Local, "ag": Local, "sed": Local, "cut": Local,
	"sort": Local, "uniq": Local, "wc": Local, "tr": Local, "echo": Local, "printf": Local, "ls": Local,
	"find": Local | TreeRemover, "diff": Local, "cmp": Local, "jq": Local, "yq": Local, "base64": Local, "xxd": Local,
	"od": Local, "hexdump": Local, "strings": Local, "tee": Local, "column": Local, "paste": Local, "fold": Local,
	"fmt": Local, "rev": Local, "file": Local, "stat": Local, "realpath": Local, "readlink": Local,
	"basename": Local, "dirname": Local, "pwd": Local, "cd": Local, "true": Local, "false": Local, "test": Local,
	"[": Local, "date": Local, "mkdir": Local, "touch": Local, "cp": Local, "mv": Local | TreeRemover,
	"rm": Local | Deleter | TreeRemover, "ln": Local, "chmod": Local | TreeRemover, "chown": TreeRemover,
	"export": Local, "unset": Local, "read": Local, "sleep": Local, "which": Local, "type": Local,
	"command": Local | Wrapper, "git": Local | Subcommand, "sha256sum": Local, "md5sum": Local, "shasum": Local,
	"env": Local | Wrapper, "printenv": Local, "tree": Local, "du": Local, "df": Local, "tar": Local,
	"zip": Local, "unzip": Local, "gzip": Local, "gunzip": Local, "bzip2": Local, "xz": Local, "zstd": Local,
	"7z": Local,
	// Shell builtins that only set the shell's own state.
	"shopt": Local, "set": Local, "declare": Local, "typeset": Local, "local": Local, "readonly": Local,
	"shift": Local, ":": Local, "pushd": Local, "popd": Local, "dirs": Local, "wait": Local, "umask": Local,
	"let": Local,

	// Deletes what it is given.
	"unlink": Deleter | TreeRemover, "shred": Deleter | TreeRemover, "rmdir": Deleter | TreeRemover,
	"srm": Deleter | TreeRemover, "truncate": Deleter, "wipefs": Deleter, "trash": Deleter | TreeRemover,
	"trash-put": Deleter | TreeRemover, "blkdiscard": Deleter, "chgrp": TreeRemover, "rsync": TreeRemover | Remote,

	// Code the line does not show.
	"python": Interpreter, "perl": Interpreter, "ruby": Interpreter, "node": Interpreter, "nodejs": Interpreter,
	"deno": Interpreter, "bun": Interpreter | Subcommand, "php": Interpreter, "lua": Interpreter,
	"osascript": Interpreter, "pwsh": Interpreter, "powershell": Interpreter, "awk": Interpreter,
	"gawk": Interpreter, "mawk": Interpreter, "nawk": Interpreter, "tclsh": Interpreter, "r": Interpreter,
	"rscript": Interpreter, "julia": Interpreter, "java": Interpreter, "jshell": Interpreter,
	"go": Interpreter | Subcommand, "cargo": Interpreter | Subcommand, "sh": Interpreter | Shell,
	"bash": Interpreter | Shell, "zsh": Interpreter | Shell, "dash": Interpreter | Shell, "ksh": Interpreter | Shell,
	"fish": Interpreter | Shell, "csh": Interpreter | Shell, "tcsh": Interpreter | Shell, "ash": Interpreter | Shell,
	"busybox": Interpreter | Wrapper, "vim": Interpreter, "vi": Interpreter, "nvim": Interpreter,
	"emacs": Interpreter, "ed": Interpreter, "ex": Interpreter, "make": Interpreter, "npx": Interpreter,
	"npm": Interpreter | Subcommand, "yarn": Interpreter | Subcommand, "pnpm": Interpreter | Subcommand,
	"pytest": Interpreter, "tsx": Interpreter, "ts-node": Interpreter,

	// Runs the words after it.
	"nice": Wrapper, "nohup": Wrapper, "timeout": Wrapper, "strace": Wrapper, "time": Wrapper, "exec": Wrapper,
	"xargs": Wrapper, "builtin": Wrapper, "sudo": Wrapper, "doas": Wrapper, "setsid": Wrapper, "stdbuf": Wrapper,
	"ionice": Wrapper, "chrt": Wrapper, "taskset": Wrapper, "unbuffer": Wrapper,
	// parallel runs its command once per input (after :::, or read like
	// xargs); watch runs its words joined by sh -c: a shell.
	"parallel": Wrapper, "watch": Shell,
	// zsh's precommand modifiers and repeat.
	"noglob": Wrapper, "nocorrect": Wrapper, "-": Wrapper, "repeat": Wrapper,

	// Subcommands.
	"docker": Subcommand | EnvConsumer, "podman": Subcommand | EnvConsumer, "docker-compose": EnvConsumer,
	"nerdctl": EnvConsumer, "kubectl": Subcommand, "pip": Subcommand, "pip3": Subcommand, "apt": Subcommand,
	"apt-get": Subcommand, "brew": Subcommand, "openssl": Subcommand, "helm": Subcommand,
	// Package managers (packageFetches: the subcommands that download).
	"gem": Subcommand, "bundle": Subcommand, "composer": Subcommand, "uv": Subcommand, "poetry": Subcommand,
	"pipx": Subcommand, "conda": Subcommand, "dnf": Subcommand, "yum": Subcommand, "apk": Subcommand,
}

// deviceReaders only read or inspect the disks they are given: kind
// DeviceReader, added to their entries above (or their own).
var deviceReaders = []string{"lsblk", "blkid", "smartctl", "mount", "umount", "findmnt", "df", "udevadm", "lsof", "fuser",
	"file", "stat", "ls", "cat", "head", "tail", "less", "more", "xxd", "od", "hexdump", "strings", "wc", "cmp",
	"md5sum", "sha1sum", "sha256sum", "sha512sum", "b2sum", "cksum"}

func init() {
	for _, p := range deviceReaders {
		programs[p] |= DeviceReader
	}
}

// Is reports whether program prog is of kind k. Interpreters are known
// with a version suffix too (python3.12, node20).
func Is(prog string, k Kind) bool {
	if programs[prog]&k != 0 {
		return true
	}
	if k&Interpreter != 0 {
		if base := strings.TrimRight(prog, "0123456789."); base != prog && base != "" {
			return programs[base]&Interpreter != 0
		}
	}
	return false
}

// ProgramTable is the effects table as docs/reference/tools.md shows it:
// one markdown row per kind, its programs sorted.
func ProgramTable() string {
	var b strings.Builder
	b.WriteString("| kind | programs |\n|---|---|\n")
	for i, n := range kindNames {
		var names []string
		for p, k := range programs {
			if k&(1<<i) != 0 {
				names = append(names, p)
			}
		}
		slices.Sort(names)
		fmt.Fprintf(&b, "| %s | `%s` |\n", n, strings.Join(names, "` `"))
	}
	return b.String()
}
