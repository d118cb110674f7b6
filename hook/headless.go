package hook

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A host run with nobody to answer (`gemini -p`, `gemini --yolo`,
// `claude -p`, `codex exec`) must get a denial for an ask, never the ask:
// Gemini CLI headless waits for a confirmation nobody gives. None of the
// hosts says so in the hook's input (Gemini's carries session, cwd,
// event and time only), but each says so in its command line, which
// the hook, the host's child, reads from its ancestors (/proc on Linux;
// elsewhere --unattended or GUARDRUN_UNATTENDED=1, which guardrun init
// --unattended writes). GUARDRUN_UNATTENDED=0 turns the detection off.

// maxAncestors bounds the walk up from the hook: the host runs it
// through a shell or two at most.
const maxAncestors = 8

// ancestorArgs lists the command lines of the hook's ancestors, nearest
// first; nil where the system does not show them. A variable for tests.
var ancestorArgs = procAncestorArgs

// procAncestorArgs reads the ancestors' command lines from /proc, up to
// the first that is not a launcher.
func procAncestorArgs() [][]string {
	var out [][]string
	pid := os.Getppid()
	for range maxAncestors {
		if pid <= 1 {
			break
		}
		cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err != nil {
			break
		}
		args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		out = append(out, args)
		if len(args) == 0 || !launchers[filepath.Base(args[0])] {
			// headlessHost looks no further than the first program that
			// is not a shell: its parent is not read.
			break
		}
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			break
		}
		// pid (comm) state ppid …: comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			break
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 2 {
			break
		}
		if pid, err = strconv.Atoi(f[1]); err != nil {
			break
		}
	}
	return out
}

// headlessHost reports whether the host agent that runs this hook was
// started with nobody to answer its questions, and the flag that says
// so: the nearest ancestor that is the host's program decides.
func headlessHost(host string) (bool, string) {
	if v := os.Getenv(UnattendedEnv); v == "0" || v == "false" || v == "no" {
		return false, ""
	}
	for _, args := range ancestorArgs() {
		if isHost(host, args) {
			flag := headlessFlag(host, args)
			return flag != "", flag
		}
		if len(args) == 0 || !launchers[filepath.Base(args[0])] {
			// The host starts its hook directly or through a shell: past
			// any other program (a test binary, a build tool) is not the
			// host that asks.
			return false, ""
		}
	}
	return false, ""
}

// launchers are the programs between a host and its hook command: the
// shells hosts run a hook command with.
var launchers = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "fish": true, "env": true, "cmd.exe": true, "powershell": true, "pwsh": true}

// hostPrograms are the program names of each host's command.
var hostPrograms = map[string][]string{
	"claude": {"claude"},
	"gemini": {"gemini"},
	"codex":  {"codex"},
}

// isHost reports whether a command line runs the host's program: as the
// program itself or as the script of an interpreter (node, sh).
func isHost(host string, args []string) bool {
	for i := 0; i < len(args) && i < 2; i++ {
		base := strings.TrimSuffix(filepath.Base(args[i]), ".exe")
		for _, p := range hostPrograms[host] {
			if base == p || base == p+".js" || strings.HasPrefix(base, p+"-") {
				return true
			}
		}
		if i == 1 && strings.Contains(args[i], "/"+host+"-cli/") {
			return true // node …/@google/gemini-cli/dist/index.js
		}
	}
	return false
}

// headlessFlag is the option or subcommand in a host's command line that
// runs it with nobody to answer, or "".
func headlessFlag(host string, args []string) string {
	for i, a := range args {
		if i == 0 {
			continue
		}
		switch host {
		case "gemini":
			switch {
			case a == "-p" || a == "--prompt" || strings.HasPrefix(a, "--prompt="):
				return a
			case a == "-y" || a == "--yolo":
				return a
			case a == "--approval-mode=yolo" || a == "--approval-mode" && i+1 < len(args) && args[i+1] == "yolo":
				return "--approval-mode yolo"
			}
		case "claude":
			if a == "-p" || a == "--print" {
				return a
			}
		case "codex":
			// The subcommand is the first word that is neither an option
			// nor an option's value.
			if strings.HasPrefix(a, "-") || codexValueOptions[args[i-1]] {
				continue
			}
			if a == "exec" || a == "e" {
				return a
			}
			return ""
		}
	}
	return ""
}

// codexValueOptions are Codex's global options that take a value as the
// next word.
var codexValueOptions = map[string]bool{"-m": true, "--model": true, "-c": true, "--config": true, "-p": true, "--profile": true,
	"-s": true, "--sandbox": true, "-a": true, "--ask-for-approval": true, "-C": true, "--cd": true, "-i": true, "--image": true}

// CanSeeHeadless reports whether the hook can tell, on this system, that
// host was started with nobody to answer (see headlessHost): hosts that
// never ask from a hook (Codex, Cursor) need nothing; the others need
// /proc.
func CanSeeHeadless(host string) bool {
	if _, ok := hostPrograms[host]; !ok || host == "codex" {
		return true
	}
	_, err := os.Stat("/proc/self/cmdline")
	return err == nil
}
