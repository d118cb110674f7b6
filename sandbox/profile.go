package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/guardrun/guardrun/internal/protect"
)

// Class is one rule of a profile.
type Class string

// The classes a profile is made of.
const (
	// Protect: guardrun's config, rules, trust store, state, decision
	// log and binaries, and the hosts' hook settings, are never written,
	// linked, renamed or removed. Every profile has it.
	Protect Class = "protect"
	// Secrets: the policy's secret paths (.env*, keys, ~/.ssh, ~/.aws,
	// …) are never read or executed.
	Secrets Class = "secrets"
	// Offline: no outbound TCP connection, except to the ports the
	// profile allows (the session holds a secret).
	Offline Class = "offline"
	// Writes: writes only beneath the workspace, temp, the caches and
	// the paths the profile adds.
	Writes Class = "writes"
)

// Starter is the profile of code guardrun cannot see into, in a session
// that holds no secret: protect and secrets.
const Starter = "starter"

var classes = []Class{Protect, Secrets, Offline, Writes}

// ParseClasses reads a profile: a comma-separated list of classes
// (protect, secrets, offline, writes) or "starter" (protect,secrets).
// Protect is always included. An unknown name is an error: a profile
// that cannot be built runs nothing.
func ParseClasses(s string) ([]Class, error) {
	set := map[Class]bool{Protect: true}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		switch {
		case f == "":
			continue
		case f == Starter:
			set[Secrets] = true
		case isClass(Class(f)):
			set[Class(f)] = true
		default:
			return nil, fmt.Errorf("unknown profile class %q (known: starter, protect, secrets, offline, writes)", f)
		}
	}
	var out []Class
	for _, c := range classes {
		if set[c] {
			out = append(out, c)
		}
	}
	return out, nil
}

func isClass(c Class) bool {
	for _, k := range classes {
		if k == c {
			return true
		}
	}
	return false
}

// Options are the inputs of a profile.
type Options struct {
	// Classes are the profile's rules (ParseClasses).
	Classes []Class
	// Home is the user's home directory and Workspace the directory the
	// agent works in; both absolute.
	Home, Workspace string
	// Getenv reads XDG_* and the hosts' variables (os.Getenv).
	Getenv func(string) string `json:"-"`
	// Ports are the TCP ports an offline profile may still connect to.
	Ports []uint16
	// Reveal are secret paths this command may read all the same (the
	// user's opt-in for, e.g., a test runner that loads .env).
	Reveal []string
	// WriteRoots are added to the workspace, temp and caches when the
	// profile confines writes.
	WriteRoots []string
	// NoMountNamespace denies the workspace's secret paths with Landlock
	// even where they could be covered in a mount namespace (see
	// Profile.Restrict).
	NoMountNamespace bool
}

// Profile is a built profile: what the ruleset will deny, and the
// Landlock rules that grant everything else.
type Profile struct {
	Classes []Class
	// Protected are the paths never written (resolved), Secrets the
	// paths never read; Unprotected are protected roots the kernel
	// leaves to the hook (they do not exist and lie in the workspace:
	// freezing the workspace root for them would cost everyday work).
	Protected, Secrets, Unprotected []string
	// Ports are the TCP ports an offline profile may connect to.
	Ports []uint16
	// Hidden are the secret paths Restrict covered in a mount
	// namespace instead of denying them with Landlock.
	Hidden []string
	// Frozen are the directories on the way to a denied path: entries
	// created in them after the restriction get none of the denied
	// rights. Restrict sets it.
	Frozen []string

	ws                 string
	protected, secrets []target
	writeBases         []string
	grants             []grant
	noMountNamespace   bool
}

// Has reports whether the profile has class c.
func (p *Profile) Has(c Class) bool {
	for _, k := range p.Classes {
		if k == c {
			return true
		}
	}
	return false
}

// Build builds the profile of o. It reads the file system (the
// protected roots, the secret files of the home directory and of the
// workspace, the entries of the frozen directories); it fails when an
// input is not usable, and never returns a weaker profile.
func Build(o Options) (*Profile, error) {
	if len(o.Classes) == 0 {
		o.Classes = []Class{Protect}
	}
	for _, c := range o.Classes {
		if !isClass(c) {
			return nil, fmt.Errorf("unknown profile class %q", c)
		}
	}
	if !filepath.IsAbs(o.Home) {
		return nil, fmt.Errorf("the home directory %q is not an absolute path", o.Home)
	}
	if !filepath.IsAbs(o.Workspace) {
		return nil, fmt.Errorf("the workspace %q is not an absolute path", o.Workspace)
	}
	if fi, err := os.Stat(o.Workspace); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("the workspace %q is not a directory", o.Workspace)
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	p := &Profile{Classes: o.Classes, Ports: o.Ports}
	ws := resolve(o.Workspace)

	var protected []target
	for _, r := range protect.ForAgent(o.Getenv, o.Home, o.Workspace).Roots() {
		t := target{path: resolve(r.Path), pattern: r.Pattern}
		if _, err := os.Lstat(t.path); err != nil && (t.path == ws || within(t.path, ws)) && existingAncestor(t.path) == ws {
			p.Unprotected = append(p.Unprotected, show(t))
			continue
		}
		protected = append(protected, t)
		p.Protected = append(p.Protected, show(t))
	}

	var secrets []target
	if p.Has(Secrets) {
		for _, s := range findSecrets(resolve(o.Home), ws) {
			if revealed(s, o.Reveal) {
				continue
			}
			secrets = append(secrets, target{path: s})
			p.Secrets = append(p.Secrets, s)
		}
	}

	p.ws, p.protected, p.secrets, p.noMountNamespace = ws, protected, secrets, o.NoMountNamespace
	p.writeBases = []string{"/"}
	if p.Has(Writes) {
		p.writeBases = writeRootsOf(o, ws)
	}
	p.plan(nil)
	return p, nil
}

// plan computes the Landlock grants: write rights on the write bases
// except the protected paths, read rights everywhere except the secret
// paths that are not hidden.
func (p *Profile) plan(hidden []string) {
	p.grants, p.Frozen, p.Hidden = nil, nil, hidden
	for _, b := range p.writeBases {
		g, f := complement(b, writeRights, p.protected)
		p.grants = append(p.grants, g...)
		p.Frozen = append(p.Frozen, f...)
	}
	var denied []target
	for _, t := range p.secrets {
		if !contains(hidden, t.path) {
			denied = append(denied, t)
		}
	}
	g, f := complement("/", readRights, denied)
	p.grants = append(p.grants, g...)
	p.Frozen = append(p.Frozen, f...)
	p.grants = append(p.grants, grant{path: "/", rights: otherRights, dir: true})
	p.Frozen = unique(p.Frozen)
}

// WantsMountNamespace reports whether Restrict would cover secret paths
// in a mount namespace (the workspace holds some, and the profile does
// not forbid it): a process without CAP_SYS_ADMIN needs a user
// namespace of its own for that.
func (p *Profile) WantsMountNamespace() bool {
	return !p.noMountNamespace && len(p.hideable()) > 0
}

// hideable are the secret paths inside the workspace: a mount namespace
// can cover them, so that the workspace root is not frozen.
func (p *Profile) hideable() []string {
	var out []string
	for _, t := range p.secrets {
		if within(t.path, p.ws) {
			out = append(out, t.path)
		}
	}
	return out
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// show is a target as a path (dir/pattern for a family of files).
func show(t target) string {
	if t.pattern != "" {
		return filepath.Join(t.path, t.pattern)
	}
	return t.path
}

// existingAncestor is the deepest existing directory at or above p.
func existingAncestor(p string) string {
	for {
		if _, err := os.Lstat(p); err == nil {
			return p
		}
		parent := filepath.Dir(p)
		if parent == p {
			return p
		}
		p = parent
	}
}

// revealed reports whether secret path s is one the user let this
// command read (s is a revealed path or inside one).
func revealed(s string, reveal []string) bool {
	for _, r := range reveal {
		if !filepath.IsAbs(r) {
			continue
		}
		r = resolve(r)
		if s == r || within(s, r) {
			return true
		}
	}
	return false
}

// writeRootsOf are the places a write-confined profile may write: the
// workspace, temp, the caches, /dev (for /dev/null and the terminal),
// and the profile's own.
func writeRootsOf(o Options, ws string) []string {
	roots := []string{ws, os.TempDir(), "/tmp", "/var/tmp", "/dev"}
	if c := o.Getenv("XDG_CACHE_HOME"); filepath.IsAbs(c) {
		roots = append(roots, c)
	} else {
		roots = append(roots, filepath.Join(o.Home, ".cache"))
	}
	for _, r := range o.WriteRoots {
		if filepath.IsAbs(r) {
			roots = append(roots, r)
		}
	}
	var out []string
	for _, r := range roots {
		out = append(out, resolve(r))
	}
	return unique(out)
}

// workspaceDepth bounds the search for secret files in the workspace:
// the directories read are the root (depth 0) and those down to this
// depth (packages/web/.env is found). maxDirs bounds the directories
// read at all; skipDirs are directories not searched: they hold
// dependencies and build output, not the project's secrets. Measured on
// this repository: depth 3 read 1225 directories and cost 80–100 ms of
// start-up, depth 2 reads 143.
const (
	workspaceDepth = 2
	maxDirs        = 1000
)

var skipDirs = map[string]bool{".git": true, "node_modules": true, ".venv": true, "venv": true, "vendor": true, "target": true, "__pycache__": true, ".cache": true}

// findSecrets lists the existing secret paths: in the home directory
// (secret names among its entries, the secret directories), and in the
// workspace down to workspaceDepth.
func findSecrets(home, ws string) []string {
	var out []string
	for _, d := range homeSecretDirs(home) {
		if _, err := os.Lstat(d); err == nil {
			out = append(out, resolve(d))
		}
	}
	if entries, err := os.ReadDir(home); err == nil {
		for _, e := range entries {
			if IsSecretName(e.Name()) && !e.IsDir() {
				out = append(out, resolve(filepath.Join(home, e.Name())))
			}
		}
	}
	read := 0
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		if read++; read > maxDirs {
			return
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			switch {
			case e.IsDir() && isSecretDir(e.Name()):
				out = append(out, p)
			case e.IsDir():
				if depth < workspaceDepth && !skipDirs[e.Name()] {
					walk(p, depth+1)
				}
			case IsSecretName(e.Name()):
				out = append(out, resolve(p))
			}
		}
	}
	walk(ws, 0)
	return unique(out)
}

func unique(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// String describes the profile in a few lines: its classes, what it
// denies, the ports it keeps, what it leaves to the hook.
func (p *Profile) String() string {
	var b strings.Builder
	var names []string
	for _, c := range p.Classes {
		names = append(names, string(c))
	}
	fmt.Fprintf(&b, "profile: %s (%d rules)\n", strings.Join(names, ","), len(p.grants))
	fmt.Fprintf(&b, "  never written: %s\n", strings.Join(p.Protected, " "))
	if p.Has(Secrets) {
		fmt.Fprintf(&b, "  never read: %s\n", strings.Join(p.Secrets, " "))
	}
	if p.Has(Offline) {
		var ports []string
		for _, n := range p.Ports {
			ports = append(ports, strconv.Itoa(int(n)))
		}
		fmt.Fprintf(&b, "  no TCP connect except to ports: [%s]\n", strings.Join(ports, " "))
	}
	if len(p.Hidden) > 0 {
		fmt.Fprintf(&b, "  covered in a mount namespace: %s\n", strings.Join(p.Hidden, " "))
	}
	if len(p.Unprotected) > 0 {
		fmt.Fprintf(&b, "  left to the hook (missing, in the workspace): %s\n", strings.Join(p.Unprotected, " "))
	}
	fmt.Fprintf(&b, "  frozen (new entries get no denied right): %s\n", strings.Join(p.Frozen, " "))
	return b.String()
}
