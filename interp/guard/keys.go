package guard

import (
	"strings"

	"github.com/guardrun/guardrun/interp/hooks"
)

// maxLowerCache bounds the lower-cased key cache: keys come from a
// script's operation subtypes and labels, a small set, but a script that
// makes labels up as it runs must not grow it without end.
const maxLowerCache = 1024

// toLower lower-cases an operation key, remembering keys that needed it.
func (en *Engine) toLower(k string) string {
	if !hasUpper(k) {
		return k
	}
	if l, ok := en.lower[k]; ok {
		return l
	}
	l := strings.ToLower(k)
	if en.lower != nil && len(en.lower) < maxLowerCache {
		en.lower[k] = l
	}
	return l
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= 0x80 {
			return true
		}
	}
	return false
}

// operationKeys is the key set an operation exposes to `op:X` and
// operation-label triggers (SPEC §5.3), lower-cased, appended to buf.
func (en *Engine) operationKeys(op *hooks.OperationContext, buf []string) []string {
	keys := buf[:0]
	add := func(k string) {
		if k == "" {
			return
		}
		k = en.toLower(k)
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
		sub := en.toLower(op.Subtype)
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

// hierMatch reports whether a hierarchical operation filter (`cmd:git`,
// lower-case) matches one of the operation labels, compared without
// case: equal to `op:cmd:git` or below it (`op:cmd:git:push`).
func hierMatch(value string, opLabels []string) bool {
	for _, l := range opLabels {
		if len(l) < 3+len(value) || !strings.EqualFold(l[:3], "op:") {
			continue
		}
		rest := l[3:]
		if !strings.EqualFold(rest[:len(value)], value) {
			continue
		}
		if len(rest) == len(value) || rest[len(value)] == ':' {
			return true
		}
	}
	return false
}
