package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/guardrun/guardrun/hook"
	"github.com/guardrun/guardrun/internal/cliflags"
	"github.com/guardrun/guardrun/rules"
	"github.com/guardrun/guardrun/sandbox"
)

const initUsage = `usage: guardrun init claude|codex|gemini|cursor [--dry-run] [--settings FILE] [--command CMD] [--unattended]
`

// runInit wires guardrun into an agent: it merges guardrun's hook
// entries into the agent's settings file (keeping everything else, and
// changing nothing when run again) and writes the starter policy when the
// user has none.
func runInit(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("guardrun init", flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.Usage = func() { fmt.Fprint(stderr, initUsage); fset.PrintDefaults() }
	dry := fset.Bool("dry-run", false, "print the changes instead of making them")
	settings := fset.String("settings", "", "the agent's settings file (default: the user's, e.g. ~/.claude/settings.json)")
	command := fset.String("command", "", "the hook command (default: guardrun-hook AGENT when guardrun-hook is installed beside guardrun, else guardrun hook AGENT; with the absolute path when it is not the one on PATH)")
	unattended := fset.Bool("unattended", false, "the agent runs with nobody to answer its questions (gemini -p --yolo, claude -p, codex exec): the hook answers an ask as a denial that says what needs approval (guardrun hook AGENT --unattended)")
	pos, ok := cliflags.ParseInterspersed(fset, args)
	if !ok {
		return exitUsage
	}
	if len(pos) != 1 {
		fset.Usage()
		return exitUsage
	}
	agent := pos[0]
	host, ok := hook.Hosts[agent]
	if !ok {
		fmt.Fprintf(stderr, "guardrun init: unknown agent %q (claude, codex, gemini, cursor)\n", agent)
		return exitUsage
	}
	if *settings == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			fmt.Fprintf(stderr, "guardrun init: %v\n", err)
			return exitFail
		}
		*settings = filepath.Join(home, filepath.FromSlash(host.Settings))
		if agent == "codex" {
			if dir, err := hook.CodexHome(); err == nil {
				*settings = filepath.Join(dir, "hooks.json")
			}
		}
	}
	if *command == "" {
		*command = hookCommand(agent)
	}
	if *unattended && !slices.Contains(strings.Fields(*command), "--unattended") {
		*command += " --unattended"
	}
	// A symlinked settings file (a dotfile manager's) stays a symlink:
	// its target is what is read and written.
	target, err := settingsTarget(*settings)
	if err != nil {
		fmt.Fprintf(stderr, "guardrun init: %v\n", err)
		return exitFail
	}
	old, err := os.ReadFile(target)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(stderr, "guardrun init: %v\n", err)
		return exitFail
	}
	merged, notes, err := hook.MergeSettingsNotes(agent, old, *command)
	if err != nil {
		fmt.Fprintf(stderr, "guardrun init: %s: %v\n", *settings, err)
		return exitFail
	}
	switch {
	case bytes.Equal(old, merged):
		fmt.Fprintf(stdout, "%s: already set up\n", *settings)
	case *dry:
		fmt.Fprintf(stdout, "--- %s\n+++ %s (with guardrun)\n%s", *settings, *settings, hook.Diff(old, merged))
	default:
		if err := writeFileAtomic(target, merged); err != nil {
			fmt.Fprintf(stderr, "guardrun init: %v\n", err)
			return exitFail
		}
		verb := "added"
		if bytes.Contains(old, []byte("guardrun")) {
			verb = "added or updated"
		}
		fmt.Fprintf(stdout, "%s: guardrun hooks %s (%s)\n", *settings, verb, strings.Join(host.Events, ", "))
	}
	for _, n := range notes {
		if *dry {
			n = "would change: " + n
		}
		fmt.Fprintf(stdout, "%s: %s\n", *settings, n)
	}
	if target != *settings && !*dry {
		fmt.Fprintf(stdout, "%s: a symlink; its target %s was written\n", *settings, target)
	}
	if !*unattended && !hook.CanSeeHeadless(agent) {
		// The host cannot tell the hook that nobody is there to answer
		// an ask, and this system does not show its command line.
		fmt.Fprintf(stdout, "%s: on this system the hook cannot tell a headless %s run (nobody to approve an ask) from an interactive one: for scripted runs set %s=1 in its environment, or set up a separate configuration with guardrun init %s --unattended\n",
			*settings, agent, hook.UnattendedEnv, agent)
	}
	if agent == "codex" {
		// Codex keys trust by the path it reads hooks.json at, not by
		// a symlink's target.
		if code := trustCodex(*settings, merged, *dry, stdout, stderr); code != exitOK {
			return code
		}
	}
	sandboxLine(stdout)
	return writeStarter(*dry, stdout, stderr)
}

// sandboxLine says whether this kernel can confine what guardrun cannot
// see (guardrun exec, and the hook's confinement, on by default), or why
// it is unconfined.
func sandboxLine(stdout io.Writer) {
	if abi, err := sandbox.ABI(); err != nil {
		fmt.Fprintf(stdout, "kernel sandbox: %v; UNCONFINED: guardrun exec refuses to run and the hook leaves the calls it would confine as the policy decided them (each answer and log record says \"unconfined\")\n", err)
	} else {
		fmt.Fprintf(stdout, "kernel sandbox: Landlock ABI %d: shell code guardrun cannot see into, and every shell call after untrusted content, runs under guardrun exec (@confine in the policy chooses the profile)\n", abi)
	}
}

// settingsTarget is the file to read and write for the settings path
// p: p itself, or the file a symlink at p points to (resolved through
// every link, and also when it does not exist yet).
func settingsTarget(p string) (string, error) {
	for range 40 {
		st, err := os.Lstat(p)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		dest, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(p), dest)
		}
		p = dest
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", p)
}

// trustCodex makes Codex run guardrun's hooks: Codex skips, in silence,
// a user hook whose hash the user has not trusted (its /hooks review),
// so `codex exec` would run unguarded. init writes the trust entries of
// guardrun's handlers (and only those) into Codex's config.toml, as the
// review does, and says how to check them.
func trustCodex(hooksFile string, hooks []byte, dry bool, stdout, stderr io.Writer) int {
	entries, err := hook.CodexTrustEntries(hooksFile, hooks)
	if err != nil {
		fmt.Fprintf(stderr, "guardrun init: %s: %v\n", hooksFile, err)
		return exitFail
	}
	dir, err := hook.CodexHome()
	if err != nil {
		fmt.Fprintf(stderr, "guardrun init: %v\n", err)
		return exitFail
	}
	config := filepath.Join(dir, "config.toml")
	if target, err := settingsTarget(config); err == nil {
		config = target
	}
	old, err := os.ReadFile(config)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(stderr, "guardrun init: %v\n", err)
		return exitFail
	}
	trusted := hook.TrustCodexHooks(old, entries)
	check := "check in codex with /hooks that guardrun's hooks are trusted; if Codex lists them as untrusted or modified (a Codex version that hashes hooks differently), trust them there, or run codex exec --dangerously-bypass-hook-trust"
	switch {
	case bytes.Equal(old, trusted):
		fmt.Fprintf(stdout, "%s: guardrun's %d Codex hooks already trusted; %s\n", config, len(entries), check)
	case dry:
		fmt.Fprintf(stdout, "--- %s\n+++ %s (guardrun's hooks trusted)\n%s", config, config, hook.Diff(old, trusted))
	default:
		if err := writeFileAtomic(config, trusted); err != nil {
			fmt.Fprintf(stderr, "guardrun init: %v\n", err)
			return exitFail
		}
		fmt.Fprintf(stdout, "%s: guardrun's %d Codex hooks trusted ([hooks.state], as Codex's /hooks review writes it; Codex runs no untrusted hook); %s\n", config, len(entries), check)
	}
	return exitOK
}

// hookCommand is the command the agent runs: guardrun-hook AGENT when a
// guardrun-hook binary sits beside this one (it starts faster, and hands
// what it cannot run back to this guardrun), else guardrun hook AGENT;
// the plain name when that binary is the one on PATH, else its absolute
// path.
func hookCommand(agent string) string {
	self, err := os.Executable()
	if err == nil {
		self, _ = filepath.EvalSymlinks(self)
	}
	if err == nil {
		slim := filepath.Join(filepath.Dir(self), "guardrun-hook")
		if st, serr := os.Stat(slim); serr == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return commandFor("guardrun-hook", slim) + " " + agent
		}
	}
	if err != nil {
		return "guardrun hook " + agent
	}
	return commandFor("guardrun", self) + " hook " + agent
}

// commandFor is how a settings file names the program at path: by name
// when that is the program PATH finds, else by its absolute path (by
// name too when the path would need quoting).
func commandFor(name, path string) string {
	real, rerr := filepath.EvalSymlinks(path)
	if onPath, err := exec.LookPath(name); err == nil && rerr == nil {
		if p, err := filepath.EvalSymlinks(onPath); err == nil && p == real {
			return name
		}
	}
	if strings.ContainsAny(path, " \t'\"") {
		return name
	}
	return path
}

// writeStarter writes the starter policy and its rule modules beside the
// user policy, unless the user already has a policy, and pins what it
// wrote in the trust store: the hook runs the user's policy only as
// pinned (guardrun trust --user pins it again after a change). A policy
// the user already has is kept and not pinned here: init says whether it
// is pinned and how to pin it.
func writeStarter(dry bool, stdout, stderr io.Writer) int {
	user, err := hook.UserPolicy()
	if err != nil {
		fmt.Fprintf(stderr, "guardrun init: %v\n", err)
		return exitFail
	}
	store, err := hook.DefaultTrustStore()
	if err != nil {
		fmt.Fprintf(stderr, "guardrun init: %v\n", err)
		return exitFail
	}
	if _, err := os.Stat(user); err == nil {
		fmt.Fprintf(stdout, "%s: kept (your policy)\n", user)
		if _, err := store.Verify(user, true); err != nil {
			fmt.Fprintf(stdout, "note: %v\n", err)
		}
		return exitOK
	}
	names, _ := fs.Glob(rules.FS, "*.guard")
	sort.Strings(names)
	if dry {
		fmt.Fprintf(stdout, "would write the starter policy %s and its rules (%s), and pin them (guardrun trust --user)\n", user, strings.Join(names, ", "))
		return exitOK
	}
	dir := filepath.Dir(user)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		fmt.Fprintf(stderr, "guardrun init: %v\n", err)
		return exitFail
	}
	var kept []string
	for _, n := range names {
		p := filepath.Join(dir, n)
		b, _ := rules.FS.ReadFile(n)
		if old, err := os.ReadFile(p); err == nil {
			if !bytes.Equal(old, b) {
				kept = append(kept, p)
			}
			continue
		}
		if err := os.WriteFile(p, b, 0o600); err != nil {
			fmt.Fprintf(stderr, "guardrun init: %v\n", err)
			return exitFail
		}
	}
	// The rules' own tests, beside them: guardrun test DIR runs them.
	tests, ncases, err := rules.TestFiles()
	if err != nil {
		fmt.Fprintf(stderr, "guardrun init: %v\n", err)
		return exitFail
	}
	for _, n := range slices.Sorted(maps.Keys(tests)) {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if _, err := os.Lstat(p); err == nil {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			fmt.Fprintf(stderr, "guardrun init: %v\n", err)
			return exitFail
		}
		if err := os.WriteFile(p, tests[n], 0o600); err != nil {
			fmt.Fprintf(stderr, "guardrun init: %v\n", err)
			return exitFail
		}
	}
	fmt.Fprintf(stdout, "%s: starter policy written (edit it; each rule is a module beside it)\n", user)
	fmt.Fprintf(stdout, "%s: the rules' %d tests written beside them (*.test.mld); run them with: guardrun test %s\n", dir, ncases, dir)
	if len(kept) > 0 {
		// Files init did not write are not pinned unseen.
		fmt.Fprintf(stdout, "kept %s (not the starter's text): the policy is not pinned, so the hook denies every tool call until you review these files and run: guardrun trust --user\n", strings.Join(kept, ", "))
		return exitOK
	}
	_, pin, err := store.TrustUser()
	if err != nil {
		fmt.Fprintf(stderr, "guardrun init: pinning the starter policy: %v\n", err)
		return exitFail
	}
	fmt.Fprintf(stdout, "%s: pinned with its %d module(s); after you edit it, review the change and run: guardrun trust --user\n", user, len(pin.Imports))
	return exitOK
}

// writeFileAtomic replaces path's content in one rename, keeping its
// mode (0600 for a new file).
func writeFileAtomic(path string, data []byte) error {
	mode := os.FileMode(0o600)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".guardrun-init-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
