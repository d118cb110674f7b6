//go:build e2e

package e2e

import (
	"strings"
	"testing"

	"github.com/guardrun/guardrun/e2e/fakemodel"
)

func splitLines(s string) []string { return strings.Split(s, "\n") }

func TestSmoke(t *testing.T) {
	for _, h := range []*host{claude, gemini, codex} {
		t.Run(h.name, func(t *testing.T) { smoke(t, h) })
	}
}

func smoke(t *testing.T, h *host) {
	w := newWorld(t)
	h.setup(w)
	w.serve(fakemodel.Step{Calls: []fakemodel.Call{h.shell("echo hello > ran.txt")}}, fakemodel.Step{Text: "done"})
	r := h.run(w, "write hello", "")
	t.Logf("out: %s", r.Out)
	t.Logf("ran: %v", w.exists(w.path("ran.txt")))
	for _, q := range w.model.Requests() {
		t.Logf("%s main=%v turn=%d %.3000s", q.Path, q.Main, q.Turn, q.Body)
	}
}
