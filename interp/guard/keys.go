package guard

import (
	"strings"

	"github.com/guardrun/guardrun/interp/hooks"
)

// operationKeys is the key set an operation exposes to `op:X` and
// operation-label triggers (SPEC §5.3), lower-cased.
func operationKeys(op *hooks.OperationContext, buf []string) []string {
	keys := buf[:0]
	add := func(k string) {
		if k == "" {
			return
		}
		k = strings.ToLower(k)
		for _, x := range keys {
			if x == k {
				return
			}
		}
		keys = append(keys, k)
	}
	add(op.Type)
	add(op.Subtype)
	if op.Type == "run" {
		add("exe")
		sub := strings.ToLower(op.Subtype)
		switch {
		case sub == "runcommand":
			add("cmd")
		case strings.HasPrefix(sub, "runexec"):
			add("exec")
		}
	}
	for _, l := range op.OpLabels {
		add(l)
		switch l {
		case "op:cmd", "op:sh", "op:js", "op:node", "op:py", "op:prose":
			add(l[3:])
		}
	}
	for _, l := range op.Labels {
		add(l)
	}
	if op.Type == "exe" && op.Subtype == "" && len(op.OpLabels) > 0 {
		add("run")
	}
	return keys
}

// hierMatch reports whether a hierarchical operation filter (`cmd:git`)
// matches one of the operation labels: equal to `op:cmd:git` or below it.
func hierMatch(value string, opLabels []string) bool {
	want := "op:" + value
	for _, l := range opLabels {
		l = strings.ToLower(l)
		if l == want || strings.HasPrefix(l, want+":") {
			return true
		}
	}
	return false
}
