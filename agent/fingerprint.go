package agent

import (
	"strings"
	"unicode"
)

// Content fingerprints (AGENT.md §4): a confidentiality-labelled output
// is normalised (lower case, whitespace runs to one space), every window
// of printK bytes is hashed, and winnowing keeps the minimum hash of each
// run of printW consecutive windows. A later input is checked against all
// of its windows, so any fragment of at least MinFragment bytes copied
// from the output (after normalisation) is found: such a fragment holds
// printW consecutive windows of the output, one of which was kept.
const (
	printK = 16
	printW = 8
	// MinFragment is the shortest copied fragment always detected.
	MinFragment = printK + printW - 1
)

func normalise(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// windowHashes hashes every printK-byte window of normalised text.
func windowHashes(s string) []uint64 {
	if len(s) < printK {
		return nil
	}
	out := make([]uint64, 0, len(s)-printK+1)
	for i := 0; i+printK <= len(s); i++ {
		out = append(out, fnv64(s[i:i+printK]))
	}
	return out
}

func fnv64(s string) uint64 { return fnvMix(fnvAdd(fnvOffset, s)) }

// fnvOffset is FNV-1a's initial state; fnvAdd goes on hashing s from
// state h, so the hash of a text built of parts is taken part by part
// without building it (fnvMix ends it).
const fnvOffset = 14695981039346656037

func fnvAdd(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

func fnvMix(h uint64) uint64 {
	// A final mix spreads FNV's weak low bits, which winnowing's minimum
	// would otherwise favour.
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}

// winnow returns the fingerprints kept for text (deduplicated).
func winnow(text string) []uint64 {
	hs := windowHashes(normalise(text))
	if len(hs) == 0 {
		return nil
	}
	var out []uint64
	seen := map[uint64]bool{}
	keep := func(h uint64) {
		if !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	if len(hs) <= printW {
		// A text shorter than one winnowing window keeps all its hashes:
		// any fragment of it long enough to hash is then found.
		for _, h := range hs {
			keep(h)
		}
		return out
	}
	for i := 0; i+printW <= len(hs); i++ {
		m := hs[i]
		for _, h := range hs[i+1 : i+printW] {
			if h < m {
				m = h
			}
		}
		keep(m)
	}
	return out
}

// allHashes are the hashes a later input is checked with: every window.
func allHashes(text string) []uint64 { return windowHashes(normalise(text)) }
