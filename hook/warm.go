package hook

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/guardrun/guardrun/internal/rawfile"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/guardrun/guardrun"
	"github.com/guardrun/guardrun/agent"
)

// MaxWarmEngines is how many loaded policy sets a Warm keeps; the least
// recently used one past it is released once no decision uses it.
const MaxWarmEngines = 16

// Warm is what a hook process builds for every event, kept for a process
// that decides many (guardrun serve): the session store, one decision
// log writer, and an engine per approved policy set. Run given a Warm
// (Options.Warm) decides exactly as a hook process does — the event is
// read and decoded by the adapter, the policies are discovered and
// checked against their pins, the modules they import against theirs,
// the session's workspace binding is read, and the engine decides and
// logs — except that a policy set already loaded, with the same bytes,
// pins, directories and workspace, is not loaded again. A changed or
// unapproved policy or module is refused on the event that meets it, as
// a hook process refuses it.
//
// A Warm is safe for concurrent use: decisions of different sessions run
// at once; events of one session are serialized by the store's session
// lock (across processes too: hook processes and a server share it).
type Warm struct {
	// loadMu serializes loads: a load sets the process's parse cache to
	// its Gate, which is process-wide.
	loadMu sync.Mutex
	// mu guards engines, tick and closed.
	mu      sync.Mutex
	engines map[string]*warmEngine
	tick    uint64
	closed  bool
	store   agent.Store
	log     *LogWriter
}

type warmEngine struct {
	eng  *agent.Engine
	used uint64
	// refs counts the decisions using eng; an evicted engine is closed
	// when the last one ends.
	refs    int
	evicted bool
}

// NewWarm opens the state directory's session store and decision log
// (StateDir, LogPath), as every hook process does.
func NewWarm() (*Warm, error) {
	readFiles.CompareAndSwap(nil, new(rawfile.Cache))
	state, err := StateDir()
	if err != nil {
		return nil, err
	}
	store, err := agent.NewFileStore(filepath.Join(state, "sessions"))
	if err != nil {
		return nil, err
	}
	// A session this process wrote last is not replayed from its
	// journal on its next event; one a hook process wrote since is.
	store.KeepDecoded = true
	path, err := LogPath()
	if err != nil {
		return nil, err
	}
	var max int64
	if v := os.Getenv(LogMaxBytesEnv); v != "" {
		max, _ = strconv.ParseInt(v, 10, 64)
	}
	lw, err := OpenLogWriter(path, max)
	if err != nil {
		return nil, err
	}
	return &Warm{engines: map[string]*warmEngine{}, store: store, log: lw}, nil
}

// Close releases every engine (each waits for its decisions to end) and
// closes the log. Events decided after Close are denied.
func (w *Warm) Close() error {
	w.mu.Lock()
	w.closed = true
	list := w.engines
	w.engines = map[string]*warmEngine{}
	w.mu.Unlock()
	for _, e := range list {
		e.eng.Close()
	}
	return w.log.Close()
}

// Engines is the number of policy sets loaded.
func (w *Warm) Engines() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.engines)
}

// errWarmClosed is the reason of an event decided after Close.
var errWarmClosed = errors.New("the decision server is shutting down: it decides nothing more, so the call is denied")

// engine returns the engine deciding with policies (discovered as pol,
// through gate when they were approved), loading it on first use, and the
// function that ends its use. Before a loaded engine is reused, the file
// modules its policies import are checked against their pins, as the
// Gate checks them while a hook process loads them.
func (w *Warm) engine(ctx context.Context, o Options, pol Policies, policies []agent.Policy, gate *Gate) (*agent.Engine, func(), error) {
	for _, a := range pol.Approved {
		if err := modulesUnchanged(a); err != nil {
			return nil, nil, fmt.Errorf("policy: %w", err)
		}
	}
	key := warmKey(pol, policies, o)
	if e, release, err := w.acquire(key); e != nil || err != nil {
		return e, release, err
	}
	w.loadMu.Lock()
	defer w.loadMu.Unlock()
	if e, release, err := w.acquire(key); e != nil || err != nil {
		return e, release, err
	}
	if gate != nil {
		guardrun.SetParseCache(gate)
	} else {
		guardrun.SetParseCache(nil)
	}
	eng, err := agent.New(ctx, agent.Config{Policies: policies, Dir: pol.Dir, Workspace: pol.Workspace, Store: w.store, Log: w.log, Deadline: o.Deadline})
	guardrun.SetParseCache(nil)
	if err != nil {
		return nil, nil, fmt.Errorf("policy: %s", rendered(err))
	}
	if gate != nil {
		if err := gate.Unloaded(); err != nil {
			eng.Close()
			return nil, nil, fmt.Errorf("policy: %s", rendered(err))
		}
	}
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		eng.Close()
		return nil, nil, errWarmClosed
	}
	w.tick++
	e := &warmEngine{eng: eng, used: w.tick}
	w.engines[key] = e
	w.evict()
	w.mu.Unlock()
	return w.acquire(key)
}

// acquire takes the engine loaded under key, if any.
func (w *Warm) acquire(key string) (*agent.Engine, func(), error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, nil, errWarmClosed
	}
	e := w.engines[key]
	if e == nil {
		return nil, nil, nil
	}
	w.tick++
	e.used = w.tick
	e.refs++
	return e.eng, func() {
		w.mu.Lock()
		e.refs--
		done := e.evicted && e.refs == 0
		w.mu.Unlock()
		if done {
			e.eng.Close()
		}
	}, nil
}

// evict drops the least recently used engines past MaxWarmEngines; each
// is closed now when unused, else by its last decision. w.mu is held.
func (w *Warm) evict() {
	for len(w.engines) > MaxWarmEngines {
		var oldest string
		for k, e := range w.engines {
			if oldest == "" || e.used < w.engines[oldest].used {
				oldest = k
			}
		}
		e := w.engines[oldest]
		delete(w.engines, oldest)
		e.evicted = true
		if e.refs == 0 {
			go e.eng.Close()
		}
	}
}

// diagnose is the package's diagnose under the load lock: it sets the
// process's parse cache too.
func (w *Warm) diagnose(err error) string {
	w.loadMu.Lock()
	defer w.loadMu.Unlock()
	return diagnose(err)
}

// warmKey identifies what an engine loads: the policies' names, bytes,
// directories and kinds, the modules pinned for them, the base directory
// and workspace, and the deadline.
func warmKey(pol Policies, policies []agent.Policy, o Options) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00%d\x00", pol.Dir, pol.Workspace, o.Deadline, len(policies))
	for _, p := range policies {
		fmt.Fprintf(h, "%s\x00%s\x00%t\x00%d\x00", p.Name, p.Dir, p.Workspace, len(p.Source))
		h.Write(p.Source)
	}
	for _, a := range pol.Approved {
		paths := make([]string, 0, len(a.Modules))
		for p := range a.Modules {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		fmt.Fprintf(h, "%s\x00%t\x00%d\x00", a.File, a.User, len(paths))
		for _, p := range paths {
			fmt.Fprintf(h, "%s\x00%s\x00", p, a.Modules[p])
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// modulesUnchanged checks the file modules a's policy imports against
// their pins (the policy itself and its directory and missing pins were
// checked by discovery): a hook process's Gate refuses a changed one
// while loading it, with the same words.
func modulesUnchanged(a *Approved) error {
	paths := make([]string, 0, len(a.Modules))
	for p := range a.Modules {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		pin := a.Modules[p]
		if p == a.File || pin == missing || strings.HasPrefix(pin, dirPrefix) {
			continue
		}
		_, b, err := readFiles.Load().ReadFile(p, maxHookFile)
		if err == nil && hex.EncodeToString(b[:]) == pin {
			continue
		}
		return &ChangedError{File: p, msg: fmt.Sprintf("module %s imported by %s %s is new or changed since you approved it, so every tool call is denied; review the change, then approve it with: %s", p, what(a.User), a.File, approveCmd(a.File, a.User))}
	}
	return nil
}

// decideWarm is the end of run for a Warm process: the loaded engine
// (or a new one) decides the call as a hook process's would.
func decideWarm(o Options, call *Call, pol Policies, policies []agent.Policy, gate *Gate) Answer {
	ctx, cancel := context.WithTimeout(context.Background(), o.Deadline)
	defer cancel()
	eng, release, err := o.Warm.engine(ctx, o, pol, policies, gate)
	if err != nil {
		return failed(o, call, nil, err.Error())
	}
	defer release()
	logPath, err := LogPath()
	if err != nil {
		return failed(o, call, nil, err.Error())
	}
	return decideCall(ctx, o, call, eng, o.Warm.store, pol, logPath)
}

// UnattendedFromEnv reports whether the environment says nobody answers
// the agent's questions (UnattendedEnv), as a hook process reads it.
func UnattendedFromEnv() bool { return unattendedFromEnv() }

// FullCommandPath is the full guardrun beside this executable, else on
// PATH (never this executable itself): the command guardrun-hook starts a
// decision server with.
func FullCommandPath() (string, error) { return fullCommand() }

// appendLog appends r to the decision log at path: through the Warm's
// one writer when there is one, else as a hook process does.
func (o Options) appendLog(path string, r agent.Record) error {
	if o.Warm == nil {
		return appendLog(path, r)
	}
	if _, err := o.Warm.log.Write(append(r.AppendJSON(nil), '\n')); err != nil {
		return errors.New("decision log: " + err.Error())
	}
	return nil
}
