package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/guardrun/guardrun/check"
)

// command is one subcommand: its one-line summary and its entry point.
type command struct {
	name, summary string
	run           func(args []string, stdout, stderr io.Writer) int
}

// commands are the subcommands in the order the usage lists them.
func commands() []command {
	return []command{
		{"fmt", "print, rewrite (-w), diff (-d) or check (--check) files in their canonical layout", runFmt},
		{"check", "report mistakes in scripts and agent policies (.guard) without running them", runCheck},
		{"test", "run policy tests (.guard test files): events, expected decisions, coverage", runTest},
		{"conform", "run the mlld conformance corpus and report what passes", runConform},
		{"hook", "decide one agent hook event read on stdin (claude, codex, gemini, cursor, generic)", func(args []string, stdout, stderr io.Writer) int {
			return runHook(args, stdinReader, stdout, stderr)
		}},
		{"serve", "decide generic hook events for agent frameworks in one warm process (Unix socket or stdio)", runServe},
		{"trust", "approve a workspace policy, list approvals or revoke one", runTrust},
		{"init", "install guardrun's hook and starter policy for an agent", runInit},
		{"exec", "run a command under the kernel sandbox (Landlock) of a profile: protected files, secret paths, network", runExec},
		{"log", "show the decisions of a session, or replay a log against changed policies", runLog},
		{"help", "show the usage of guardrun or of one command", nil},
		{"version", "print guardrun's module version and commit (also --version)", nil},
	}
}

// topUsage is the usage of guardrun: how to run a script, then one line
// per command.
func topUsage() string {
	var b strings.Builder
	b.WriteString("usage: guardrun [flags] FILE        run a script (.mld strict, .md prose)\n")
	b.WriteString("       guardrun COMMAND [ARGS...]\n\ncommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-8s %s\n", c.name, c.summary)
	}
	b.WriteString("\n`guardrun help COMMAND` or `guardrun COMMAND -h` shows a command's flags;\n`guardrun -h` the flags of running a script.\n")
	return b.String()
}

// lookupCommand finds a subcommand by name.
func lookupCommand(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// wantsHelp reports whether args ask for help (-h, -help, --help before
// a `--`).
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// commandHelp prints a command's usage and flags on stdout.
func commandHelp(c command, stdout io.Writer) int {
	var buf bytes.Buffer
	// Each command prints its usage and flags where it reports usage
	// problems; asked with -h it has nothing else to do.
	c.run([]string{"-h"}, io.Discard, &buf)
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		if strings.HasPrefix(line, "guardrun hook: name the agent") {
			continue
		}
		io.WriteString(stdout, line)
	}
	return exitOK
}

// runHelp is `guardrun help [COMMAND]`.
func runHelp(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || wantsHelp(args[:1]) {
		fmt.Fprint(stdout, topUsage())
		return exitOK
	}
	switch args[0] {
	case "help":
		fmt.Fprintln(stdout, "usage: guardrun help [COMMAND]")
		return exitOK
	case "version":
		fmt.Fprintln(stdout, "usage: guardrun version")
		return exitOK
	}
	c, ok := lookupCommand(args[0])
	if !ok {
		unknownCommand(args[0], stderr)
		return exitUsage
	}
	return commandHelp(c, stdout)
}

// unknownCommand reports a word that is neither a command nor a file.
func unknownCommand(name string, stderr io.Writer) {
	names := make([]string, 0, 10)
	for _, c := range commands() {
		names = append(names, c.name)
	}
	msg := "guardrun: unknown command " + name
	if s := check.Suggest(name, names); s != "" {
		msg += "; did you mean " + s + "?"
	}
	fmt.Fprintln(stderr, msg)
	fmt.Fprint(stderr, topUsage())
}

// looksLikeCommand reports whether a first argument that names no
// command was meant as one: a bare word (no dot, no slash) naming no
// file.
func looksLikeCommand(arg string) bool {
	if arg == "" || strings.HasPrefix(arg, "-") || strings.ContainsAny(arg, "./\\") {
		return false
	}
	_, err := os.Stat(arg)
	return err != nil
}

// runVersion is `guardrun version`: the module version and the commit
// the binary was built from (build info; "unknown" when built without
// version control stamping).
func runVersion(stdout io.Writer) int {
	version, commit, modified, when := "(devel)", "unknown", false, ""
	goVersion := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		goVersion = bi.GoVersion
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			case "vcs.time":
				when = s.Value
			}
		}
	}
	fmt.Fprintf(stdout, "guardrun %s\ncommit %s", version, commit)
	if modified {
		fmt.Fprint(stdout, " (modified)")
	}
	if when != "" {
		fmt.Fprint(stdout, " "+when)
	}
	fmt.Fprintln(stdout)
	if goVersion != "" {
		fmt.Fprintln(stdout, goVersion)
	}
	return exitOK
}
