package agent

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"maps"
	"math"
	"slices"
	"time"
	"unsafe"

	"github.com/guardrun/guardrun/interp/action"
)

// The file store's journal: an 8-byte magic, then records, each a 4-byte
// little-endian payload length, the payload's checksum (journalSum) and
// the payload.
// The first record is a snapshot (the whole session); every later one is
// the delta one update made. A payload is
//
//	kind (1 snapshot, 2 delta) · id · created · updated · seq
//	· origins · context · prints · calls   (slice edits)
//	· approvals · retries · reads · counts · files (map edits)
//	· [account: models (map edit) · open call · turn context
//	   · [prompt · [outputs (slice edit)]]]
//
// An origin is seq · event · tool · call id · labels · why · file; a
// count is allow · ask · deny · total; an output seq · tool · text ·
// labels.
//
// A slice edit is "drop d elements from the front, keep the first k of
// the rest, append these n", which says in a few bytes what a session
// does to its slices: append, trim calls at the cap (from the front),
// set a late call's outcome or decision, merge labels into the last
// origin at the origins cap. A map edit is the deleted keys, then the
// keys set. Integers are varints, strings length-prefixed; appended
// fingerprints come in runs of one origin, 8 fixed bytes a hash. The format is binary so that replaying a session
// of 1,000 calls and 50,000 fingerprints costs a fraction of a
// millisecond, not a JSON decode.
// The checksum is keyedSum under the store's key (a per-user random key
// file, 0600, in the store's directory), not a CRC: hash/crc32 builds its
// tables in every process that links it (≈0.03 ms for IEEE, ≈0.2 ms for
// Castagnoli), and a hook process is short. Keyed, a valid record cannot
// be written by whoever cannot read the key (an agent's Write tool
// choosing printable bytes, as against the unkeyed sum of version 3).
//
// Version 4 added the counts and an origin's why, then the files, then
// the account (model calls, tokens, the turn's context bytes): a record
// ends with an account section only when the update changed the account,
// so version-4 journals written before it are read as they are (an empty
// account). Version 5 added an origin's file (Origin.File), then the
// prompt and the latest outputs after the account (a record that changed
// neither ends before them). Journals
// of versions 2, 3 and 4 are read (a version-4 origin has no file; in
// versions 2 and 3 the calls stand in for the counts) and rewritten by
// the next update.
const journalMagic = "GRSJRNL5"

// journalMagicV4 starts version-4 journals: no origin file.
const journalMagicV4 = "GRSJRNL4"

// journalMagicV3 starts version-3 journals: no counts, no origin why,
// checksummed with the unkeyed journalSum.
const journalMagicV3 = "GRSJRNL3"

// journalMagicV2 starts the journals of earlier versions: the same
// records, checksummed with CRC-32 (IEEE). They are read (checked with
// crc32IEEE) and rewritten in the current format by the next update.
const journalMagicV2 = "GRSJRNL2"

const (
	recSnapshot byte = 1
	recDelta    byte = 2
	recHeader        = 8
)

// appendRecord appends the framed record that turns before into after (a
// snapshot of after when before is nil), checksummed under the zero key.
func appendRecord(buf []byte, before, after *Session) []byte {
	return appendEdit(buf, before, nil, after, sumKey{})
}

// appendEdit is appendRecord with, when sp is not nil, the journal's
// encodings standing in for before's origins, fingerprints and calls
// (which before then leaves out): each element of after is compared with the bytes
// its counterpart was decoded from.
func appendEdit(buf []byte, before *Session, sp *spans, after *Session, key sumKey) []byte {
	return appendEditAs(buf, before, sp, after, key, 5)
}

// appendEditAs is appendEdit in the record format of version ver: 3 or
// 4 for tests of reading earlier journals, else the current one.
func appendEditAs(buf []byte, before *Session, sp *spans, after *Session, key sumKey, ver int) []byte {
	old := ver <= 3
	kind := recDelta
	if before == nil {
		kind, before = recSnapshot, &Session{}
	}
	start := len(buf)
	e := &enc{b: append(buf, make([]byte, recHeader)...), old: old, noFile: ver <= 4}
	e.b = append(e.b, kind)
	e.str(after.ID)
	e.time(after.Created)
	e.time(after.Updated)
	e.varint(int64(after.Seq))
	if sp != nil {
		putSlice(e, len(sp.origins), after.Origins, sp.origin, (*enc).origin)
	} else {
		putSlice(e, len(before.Origins), after.Origins, func(i int, o *Origin) bool { return originEqual(&before.Origins[i], o) }, (*enc).origin)
	}
	putSlice(e, len(before.Context), after.Context, func(i int, c *int) bool { return before.Context[i] == *c }, func(e *enc, i *int) { e.varint(int64(*i)) })
	switch {
	case sp != nil:
		putPrints(e, sp.nprints, sp.print, after.Prints)
	case before.printsOf != nil:
		// Of a digest, the whole prefix is kept or none of it.
		keep := 0
		if before.printsOf.same(after.Prints) {
			keep = before.printsOf.n
		}
		e.uvarint(0)
		e.uvarint(uint64(keep))
		e.uvarint(uint64(len(after.Prints) - keep))
		putPrintsFrom(e, after.Prints, keep)
	default:
		putPrints(e, len(before.Prints), func(i int, p *Print) bool { return before.Prints[i] == *p }, after.Prints)
	}
	if sp != nil {
		putSlice(e, len(sp.calls), after.Calls, sp.call, (*enc).call)
	} else {
		putSlice(e, len(before.Calls), after.Calls, func(i int, c *Call) bool { return before.Calls[i] == *c }, (*enc).call)
	}
	putMap(e, before.Approvals, after.Approvals, func(e *enc, v bool) { e.bool(v) })
	putMap(e, before.Retries, after.Retries, func(e *enc, v int) { e.varint(int64(v)) })
	putMap(e, before.Reads, after.Reads, (*enc).str)
	if !old {
		putMap(e, before.Counts, after.Counts, (*enc).counter)
		putMap(e, before.Files, after.Files, (*enc).str)
		// The prompt follows the account, and the outputs the prompt
		// (each written when it or a later one changed): journals
		// written before them end at the account or the prompt.
		outputs := !outputsEqual(before.Outputs, after.Outputs)
		if !after.Account.equal(&before.Account) || after.Prompt != before.Prompt || outputs {
			e.account(&before.Account, &after.Account)
			if after.Prompt != before.Prompt || outputs {
				e.str(after.Prompt)
			}
			if outputs {
				putSlice(e, len(before.Outputs), after.Outputs, func(i int, o *Output) bool { return outputEqual(&before.Outputs[i], o) }, (*enc).output)
			}
		}
	}
	payload := e.b[start+recHeader:]
	binary.LittleEndian.PutUint32(e.b[start:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(e.b[start+4:], keyedSum(key, payload))
	return e.b
}

// decodeJournal replays a journal checksummed under the zero key,
// returning the session and the journal's shape. Any damage
// (a torn tail, a flipped bit, a record that does not fit the session)
// is an error: a session is never silently shorter than what was saved.
func decodeJournal(data []byte) (*Session, journalShape, error) {
	return decodeJournalKey(data, sumKey{})
}

// decodeJournalKey is decodeJournal under key.
func decodeJournalKey(data []byte, key sumKey) (*Session, journalShape, error) {
	s, _, shape, err := decodeSpans(data, false, key)
	return s, shape, err
}

// decodeSpans is decodeJournal that, when track is set, also returns
// where the session's origins, fingerprints and calls are encoded in data (nil when
// data is too large for the offsets), for appendEdit.
func decodeSpans(data []byte, track bool, key sumKey) (*Session, *spans, journalShape, error) {
	sum := func(b []byte) uint32 { return keyedSum(key, b) }
	stale, old, noFile := false, false, false
	switch {
	case len(data) < len(journalMagic):
		return nil, nil, journalShape{}, errors.New("not a session journal (bad header)")
	case string(data[:len(journalMagic)]) == journalMagic:
	case string(data[:len(journalMagicV4)]) == journalMagicV4:
		stale, noFile = true, true
	case string(data[:len(journalMagicV3)]) == journalMagicV3:
		sum, stale, old, noFile = journalSum, true, true, true
	case string(data[:len(journalMagicV2)]) == journalMagicV2:
		sum, stale, old, noFile = crc32IEEE, true, true, true
	default:
		return nil, nil, journalShape{}, errors.New("not a session journal (bad header)")
	}
	// Decoded strings share the file's bytes instead of allocating one
	// each: data is the caller's fresh buffer and is never written again.
	text := unsafe.String(unsafe.SliceData(data), len(data))
	s := &Session{}
	var sp *spans
	// A stale journal is rewritten whole by the next update: it needs
	// no spans (which compare against the current encoding).
	if track && !stale && len(data) <= math.MaxInt32 {
		sp = &spans{text: text}
	}
	snapEnd, records := 0, 0
	var labels []string
	for pos := len(journalMagic); pos < len(data); {
		if len(data)-pos < recHeader {
			return nil, nil, journalShape{}, fmt.Errorf("torn record at byte %d", pos)
		}
		n := int(binary.LittleEndian.Uint32(data[pos:]))
		want := binary.LittleEndian.Uint32(data[pos+4:])
		if n > len(data)-pos-recHeader {
			return nil, nil, journalShape{}, fmt.Errorf("torn record at byte %d (%d bytes announced, %d present)", pos, n, len(data)-pos-recHeader)
		}
		body := pos + recHeader
		if sum(data[body:body+n]) != want {
			return nil, nil, journalShape{}, fmt.Errorf("record at byte %d fails its checksum", pos)
		}
		d := &dec{s: text[body : body+n], base: body, labels: labels, sp: sp, old: old, noFile: noFile}
		d.record(s, snapEnd == 0)
		labels = d.labels
		records++
		if d.err != nil {
			return nil, nil, journalShape{}, fmt.Errorf("record at byte %d: %w", pos, d.err)
		}
		pos = body + n
		if snapEnd == 0 {
			snapEnd = pos
		}
	}
	if snapEnd == 0 {
		return nil, nil, journalShape{}, errors.New("no snapshot record")
	}
	if old {
		s.Counts = countCalls(s.Calls)
	}
	return s, sp, journalShape{snapEnd: snapEnd, deltas: records - 1, stale: stale, unkeyed: old}, nil
}

// spans locate a decoded session's origins, fingerprints and calls in
// its journal: the offset in text of each origin's and call's encoding,
// and the runs the fingerprints' hashes are in. With them, an update's
// before-image need not copy them (a long session's largest part): the
// journal, which nothing writes again, is the copy.
// Comparing an element with its encoding is exact (never a hash): it is
// unchanged only when it would encode to the very same bytes, and so
// replay to what the journal already holds.
type spans struct {
	text           string
	origins, calls []int32
	// prints cover the nprints fingerprints in order; run is where
	// the last one looked up was found (the diff reads them in order).
	prints  []printRun
	nprints int
	run     int
}

// printRun is a run of fingerprints of one origin as the journal holds
// them: the session's fingerprints from index at on, their hashes 8
// bytes each from offset off of the journal.
type printRun struct {
	at, off int32
	origin  int
}

// print reports whether p is fingerprint i as the journal holds it.
func (sp *spans) print(i int, p *Print) bool {
	r := sp.run
	if r >= len(sp.prints) || int(sp.prints[r].at) > i || (r+1 < len(sp.prints) && int(sp.prints[r+1].at) <= i) {
		// The last run with at <= i (the first has at 0).
		lo, hi := 0, len(sp.prints)
		for hi-lo > 1 {
			if m := int(uint(lo+hi) >> 1); int(sp.prints[m].at) <= i {
				lo = m
			} else {
				hi = m
			}
		}
		r, sp.run = lo, lo
	}
	run := &sp.prints[r]
	off := int(run.off) + 8*(i-int(run.at))
	return run.origin == p.Origin && le64(sp.text[off:off+8]) == p.Hash
}

// editRuns applies a slice edit's drop and keep to the runs of n
// fingerprints.
func editRuns(runs []printRun, n, drop, keep int) []printRun {
	if drop == 0 && keep == n {
		return runs
	}
	out := runs[:0]
	for k, r := range runs {
		start, end := int(r.at), n
		if k+1 < len(runs) {
			end = int(runs[k+1].at)
		}
		lo, hi := max(start, drop), min(end, drop+keep)
		if lo < hi {
			out = append(out, printRun{at: int32(lo - drop), off: r.off + int32(8*(lo-start)), origin: r.origin})
		}
	}
	return out
}

// origin reports whether o encodes as origin i was encoded.
func (sp *spans) origin(i int, o *Origin) bool {
	d := dec{s: sp.text, i: int(sp.origins[i])}
	if d.int() != o.Seq || d.str() != string(o.Event) || d.str() != o.Tool || d.str() != o.CallID || d.uvarint() != uint64(len(o.Labels)) {
		return false
	}
	for _, l := range o.Labels {
		if d.str() != l {
			return false
		}
	}
	return d.str() == o.Why && d.str() == o.File && d.err == nil
}

// call reports whether c encodes as call i was encoded.
func (sp *spans) call(i int, c *Call) bool {
	d := dec{s: sp.text, i: int(sp.calls[i])}
	return d.int() == c.Seq && d.str() == c.Name && d.str() == c.Decision.String() && d.sameTime(c.Time) &&
		d.str() == c.CallID && d.str() == c.Command && d.str() == c.Outcome && d.err == nil
}

// journalShape is what decides a compaction: where the snapshot ends,
// how many deltas follow it, and whether an earlier version wrote it
// (stale: the next update rewrites it instead of appending), one whose
// checksums are not keyed (unkeyed: versions 2 and 3, which anyone could
// write).
type journalShape struct {
	snapEnd, deltas int
	stale, unkeyed  bool
}

// sumKey is a store's checksum key (keyedSum).
type sumKey [2]uint64

// keyedSum is a record's checksum: journalSum's multiply-xorshift hash
// started from a state the key's first word changes and finished through
// its second. It is no MAC in the cryptographic sense, but without the key
// the 32 bits of a chosen payload cannot be computed, only guessed (2⁻³²).
// With the zero key it is still a checksum against damage.
func keyedSum(k sumKey, b []byte) uint32 {
	h := (uint64(len(b))*0x9e3779b97f4a7c15 + 0x2545f4914f6cdd1d) ^ k[0]
	for ; len(b) >= 8; b = b[8:] {
		h = (h ^ binary.LittleEndian.Uint64(b)) * 0xbf58476d1ce4e5b9
		h ^= h >> 31
	}
	var tail [8]byte
	copy(tail[:], b)
	h = (h ^ binary.LittleEndian.Uint64(tail[:])) * 0x94d049bb133111eb
	h ^= h >> 29
	h = (h ^ k[1]) * 0xbf58476d1ce4e5b9
	h ^= h >> 32
	h *= 0x94d049bb133111eb
	h ^= h >> 29
	return uint32(h ^ h>>32)
}

// journalSum is the checksum of version-3 journals: a multiply-xorshift hash of the
// payload, 8 bytes at a time. Each step is a bijection of the 64-bit
// state, so a change confined to one word always changes the state, and
// survives the truncation to 32 bits but for a 2⁻³² chance; a torn
// record is caught by its length first. It guards against damage, not
// against an attacker: its output for chosen bytes is computable.
func journalSum(b []byte) uint32 {
	h := uint64(len(b))*0x9e3779b97f4a7c15 + 0x2545f4914f6cdd1d
	for ; len(b) >= 8; b = b[8:] {
		h = (h ^ binary.LittleEndian.Uint64(b)) * 0xbf58476d1ce4e5b9
		h ^= h >> 31
	}
	var tail [8]byte
	copy(tail[:], b)
	h = (h ^ binary.LittleEndian.Uint64(tail[:])) * 0x94d049bb133111eb
	h ^= h >> 29
	return uint32(h ^ h>>32)
}

// crc32IEEE is CRC-32 (IEEE) a bit at a time, for the journals of
// earlier versions: read once each, so slowness does not matter, and it
// spares every hook process hash/crc32's tables.
func crc32IEEE(b []byte) uint32 {
	c := ^uint32(0)
	for _, x := range b {
		c ^= uint32(x)
		for range 8 {
			c = c>>1 ^ 0xedb88320&-(c&1)
		}
	}
	return ^c
}

// cloneSession copies what the journal saves, deeply enough that fn's
// changes to the session do not show in the copy.
func cloneSession(s *Session) *Session {
	c := new(diffBase).fill(s, 0)
	c.printsOf = nil
	c.Prints = clip(s.Prints)
	return c
}

// printsDigest stands for a session's fingerprints in a diff's before:
// their number and their digest. After the diff (eq), whole is the
// digest of all of after's fingerprints, for the next update of a kept
// session.
type printsDigest struct {
	n     int
	sum   uint64
	whole uint64
}

// printsSeed seeds the digests (per process: a digest is never stored).
var printsSeed = maphash.MakeSeed()

// printBytes are fingerprints' bytes (a Print is two machine words, no
// padding).
func printBytes(ps []Print) []byte {
	if len(ps) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&ps[0])), len(ps)*int(unsafe.Sizeof(ps[0])))
}

// digestPrints is a digest of fingerprints.
func digestPrints(ps []Print) uint64 { return maphash.Bytes(printsSeed, printBytes(ps)) }

// same reports whether the first n of after are before's fingerprints:
// their digest is before's (then every one of them is equal). It hashes
// after's fingerprints once: the first n for the comparison, all of them
// for whole.
func (d *printsDigest) same(after []Print) bool {
	var h maphash.Hash
	h.SetSeed(printsSeed)
	same := false
	if len(after) >= d.n {
		h.Write(printBytes(after[:d.n]))
		same = h.Sum64() == d.sum
		h.Write(printBytes(after[d.n:]))
	} else {
		h.Write(printBytes(after))
	}
	d.whole = h.Sum64()
	return same
}

// diffBase is the before of an update's diff (appendEdit) that a kept
// session reuses from one update to the next: its origins, calls and
// labels are copied into the same arrays every time, and its
// fingerprints, which a long session has many of, are not copied at all
// but stand as their number and digest (printsOf).
type diffBase struct {
	s      Session
	labels []string
	prints printsDigest
}

// fill makes b the before of an update of s, whose fingerprints' digest
// is printsSum, and returns it.
func (b *diffBase) fill(s *Session, printsSum uint64) *Session {
	c := cloneRest(s)
	c.Calls = append(b.s.Calls[:0], s.Calls...)
	c.Origins = b.s.Origins[:0]
	labels := b.labels[:0]
	for _, o := range s.Origins {
		start := len(labels)
		labels = append(labels, o.Labels...)
		o.Labels = labels[start:len(labels):len(labels)]
		c.Origins = append(c.Origins, o)
	}
	if s.Origins == nil {
		c.Origins = nil
	}
	if s.Calls == nil {
		c.Calls = nil
	}
	b.labels = labels
	b.prints = printsDigest{n: len(s.Prints), sum: printsSum}
	c.printsOf = &b.prints
	b.s = *c
	return &b.s
}

// cloneForDiff is the before of an update's diff of s in a new diffBase.
func cloneForDiff(s *Session) *Session {
	return new(diffBase).fill(s, digestPrints(s.Prints))
}

// cloneRest is cloneSession but for the origins, fingerprints and
// calls, for an update whose journal's spans stand in for them.
func cloneRest(s *Session) *Session {
	return &Session{ID: s.ID, Created: s.Created, Updated: s.Updated, Seq: s.Seq,
		Context:   clip(s.Context),
		Approvals: maps.Clone(s.Approvals), Retries: maps.Clone(s.Retries), Reads: maps.Clone(s.Reads),
		Counts: maps.Clone(s.Counts), Files: maps.Clone(s.Files), Account: s.Account.clone(), Prompt: s.Prompt,
		Outputs: clip(s.Outputs)}
}

func clip[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return append(make([]T, 0, len(s)), s...)
}

func originEqual(a, b *Origin) bool {
	if a.Seq != b.Seq || a.Event != b.Event || a.Tool != b.Tool || a.CallID != b.CallID || a.Why != b.Why || a.File != b.File || len(a.Labels) != len(b.Labels) {
		return false
	}
	for i := range a.Labels {
		if a.Labels[i] != b.Labels[i] {
			return false
		}
	}
	return true
}

// putSlice writes the edit that turns before (nb elements, eq(i, x)
// telling whether its element i equals x) into after.
func putSlice[T any](e *enc, nb int, after []T, eq func(i int, x *T) bool, put func(*enc, *T)) {
	keep := putEdit(e, nb, after, eq)
	for i := keep; i < len(after); i++ {
		put(e, &after[i])
	}
}

// putEdit writes the drop, keep and append count of the edit that turns
// before into after, and returns keep. It tries the two shapes a session
// produces: after extends a prefix of before, or a prefix of before was
// dropped (calls trimmed at the cap) and after extends what remained; it
// takes the one that keeps more.
func putEdit[T any](e *enc, nb int, after []T, eq func(i int, x *T) bool) int {
	drop, keep := 0, commonPrefix(nb, 0, after, eq)
	if keep < nb && len(after) > 0 {
		// Dropping k keeps at most nb-k, which must beat keep: a
		// session that changed only its last elements is not searched.
		for k := 1; k < nb-keep; k++ {
			if eq(k, &after[0]) {
				if p := commonPrefix(nb, k, after, eq); p > keep {
					drop, keep = k, p
				}
				break
			}
		}
	}
	e.uvarint(uint64(drop))
	e.uvarint(uint64(keep))
	e.uvarint(uint64(len(after) - keep))
	return keep
}

// putPrints writes the fingerprints' edit with the appended ones in runs
// of one origin (an output's fingerprints are added together): a run is
// its length, the origin, and 8 bytes per hash.
func putPrints(e *enc, nb int, eq func(i int, p *Print) bool, after []Print) {
	putPrintsFrom(e, after, putEdit(e, nb, after, eq))
}

// putPrintsFrom writes the fingerprints of after from keep on.
func putPrintsFrom(e *enc, after []Print, keep int) {
	tail := after[keep:]
	e.b = slices.Grow(e.b, len(tail)*9)
	for i := 0; i < len(tail); {
		j := i + 1
		for j < len(tail) && tail[j].Origin == tail[i].Origin {
			j++
		}
		e.uvarint(uint64(j - i))
		e.varint(int64(tail[i].Origin))
		for _, p := range tail[i:j] {
			e.b = binary.LittleEndian.AppendUint64(e.b, p.Hash)
		}
		i = j
	}
}

// commonPrefix is how many elements of after equal before's from
// element from on.
func commonPrefix[T any](nb, from int, after []T, eq func(i int, x *T) bool) int {
	n := min(nb-from, len(after))
	for i := 0; i < n; i++ {
		if !eq(from+i, &after[i]) {
			return i
		}
	}
	return n
}

func putMap[V comparable](e *enc, before, after map[string]V, put func(*enc, V)) {
	var dels []string
	for k := range before {
		if _, ok := after[k]; !ok {
			dels = append(dels, k)
		}
	}
	e.uvarint(uint64(len(dels)))
	for _, k := range dels {
		e.str(k)
	}
	var sets []string
	for k, v := range after {
		if old, ok := before[k]; !ok || old != v {
			sets = append(sets, k)
		}
	}
	e.uvarint(uint64(len(sets)))
	for _, k := range sets {
		e.str(k)
		put(e, after[k])
	}
}

// enc writes a record's payload (old: as version 3 did; noFile: with
// no origin file, as versions 3 and 4 did).
type enc struct {
	b      []byte
	old    bool
	noFile bool
}

func (e *enc) uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *enc) varint(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *enc) str(s string)     { e.uvarint(uint64(len(s))); e.b = append(e.b, s...) }

func (e *enc) bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

// time keeps the instant and the zone offset (a call's time is shown
// with its offset), as the JSON store did; a zero time is one byte.
func (e *enc) time(t time.Time) {
	if t.IsZero() {
		e.b = append(e.b, 0)
		return
	}
	_, off := t.Zone()
	e.b = append(e.b, 1)
	e.varint(t.Unix())
	e.uvarint(uint64(t.Nanosecond()))
	e.varint(int64(off))
}

func (e *enc) origin(o *Origin) {
	e.varint(int64(o.Seq))
	e.str(string(o.Event))
	e.str(o.Tool)
	e.str(o.CallID)
	e.uvarint(uint64(len(o.Labels)))
	for _, l := range o.Labels {
		e.str(l)
	}
	if !e.old {
		e.str(o.Why)
	}
	if !e.noFile {
		e.str(o.File)
	}
}

func (e *enc) output(o *Output) {
	e.varint(int64(o.Seq))
	e.str(o.Tool)
	e.str(o.Text)
	e.uvarint(uint64(len(o.Labels)))
	for _, l := range o.Labels {
		e.str(l)
	}
}

func (e *enc) counter(c Count) {
	e.varint(int64(c.Allow))
	e.varint(int64(c.Ask))
	e.varint(int64(c.Deny))
	e.varint(int64(c.Total))
}

// account writes the account section of a record, which follows the
// files only when the account changed: the models as a map edit, then
// the open call and the turn's context bytes.
func (e *enc) account(before, after *Account) {
	putMap(e, before.Models, after.Models, (*enc).modelUsage)
	c := &after.Call
	e.str(c.Model)
	e.varint(c.In)
	e.varint(c.Out)
	e.bool(c.Measured)
	e.bool(c.Open)
	e.varint(int64(after.TurnContext))
}

func (e *enc) modelUsage(u ModelUsage) {
	e.varint(u.Calls)
	e.varint(u.Input)
	e.varint(u.Output)
	e.varint(u.Counted)
}

func (e *enc) call(c *Call) {
	e.varint(int64(c.Seq))
	e.str(c.Name)
	e.str(c.Decision.String())
	e.time(c.Time)
	e.str(c.CallID)
	e.str(c.Command)
	e.str(c.Outcome)
}

// dec reads one record's payload; the first error sticks and later reads
// return zero values.
type dec struct {
	s   string
	i   int
	err error
	// base is where s starts in the journal; sp, when not nil, records
	// there where each origin and call is encoded.
	base int
	sp   *spans
	// labels is an arena the origins' labels are cut from (one
	// allocation for many origins).
	labels []string
	// old is set for a journal of version 3 or earlier (no counts, no
	// origin why), noFile for one of version 4 or earlier (no origin
	// file).
	old, noFile bool
}

func (d *dec) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf(format, args...)
	}
	d.i = len(d.s)
}

func (d *dec) byte() byte {
	if d.i >= len(d.s) {
		d.fail("truncated")
		return 0
	}
	d.i++
	return d.s[d.i-1]
}

func (d *dec) uvarint() uint64 {
	if d.i < len(d.s) && d.s[d.i] < 0x80 {
		// Most numbers here are one byte.
		d.i++
		return uint64(d.s[d.i-1])
	}
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		b := d.byte()
		if d.err != nil {
			return 0
		}
		if shift == 63 && b > 1 {
			break
		}
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v
		}
	}
	d.fail("varint overflows")
	return 0
}

func (d *dec) varint() int64 {
	u := d.uvarint()
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return v
}

func (d *dec) int() int {
	v := d.varint()
	if int64(int(v)) != v {
		d.fail("integer out of range")
		return 0
	}
	return int(v)
}

// count reads a number of items each at least size bytes long, so that a
// corrupt count cannot ask for more memory than the record could hold.
func (d *dec) count(size int) int {
	n := d.uvarint()
	if n > uint64(len(d.s)-d.i)/uint64(size) {
		d.fail("count %d exceeds the record", n)
		return 0
	}
	return int(n)
}

// str is count(1) and the bytes, without count's division: a session's
// strings are most of what a replay reads.
func (d *dec) str() string {
	n := d.uvarint()
	if n > uint64(len(d.s)-d.i) {
		d.fail("count %d exceeds the record", n)
		return ""
	}
	s := d.s[d.i : d.i+int(n)]
	d.i += int(n)
	return s
}

// action reads an action's word; an unknown word fails the record
// (a journal is read whole or refused).
func (d *dec) action() Outcome {
	s := d.str()
	a, err := action.Parse(s)
	if err != nil && d.err == nil {
		d.fail("call decision: %v", err)
	}
	return a
}

func (d *dec) bool() bool {
	switch d.byte() {
	case 0:
		return false
	case 1:
		return true
	}
	d.fail("bad boolean")
	return false
}

func (d *dec) time() time.Time {
	switch d.byte() {
	case 0:
		return time.Time{}
	case 1:
	default:
		d.fail("bad time")
		return time.Time{}
	}
	sec, nsec, off := d.varint(), d.uvarint(), d.int()
	if nsec >= 1e9 {
		d.fail("bad time")
		return time.Time{}
	}
	t := time.Unix(sec, int64(nsec))
	// As time.Parse does with an RFC 3339 offset: UTC for zero, the
	// local zone when it has that offset then, else a fixed zone.
	if off == 0 {
		return t.UTC()
	}
	if _, loff := t.Zone(); loff == off {
		return t
	}
	return t.In(time.FixedZone("", off))
}

// sameTime reports whether the time read next is encoded as enc.time
// encodes t.
func (d *dec) sameTime(t time.Time) bool {
	if t.IsZero() {
		return d.byte() == 0
	}
	if d.byte() != 1 {
		return false
	}
	_, off := t.Zone()
	return d.varint() == t.Unix() && d.uvarint() == uint64(t.Nanosecond()) && d.varint() == int64(off)
}

func (d *dec) origin() Origin {
	o := Origin{Seq: d.int(), Event: Kind(d.str()), Tool: d.str(), CallID: d.str()}
	if n := d.count(1); n > 0 {
		if cap(d.labels)-len(d.labels) < n {
			d.labels = make([]string, 0, max(n, 512))
		}
		start := len(d.labels)
		for ; n > 0; n-- {
			d.labels = append(d.labels, d.str())
		}
		// Capped, so that merging labels into an origin copies them.
		o.Labels = d.labels[start:len(d.labels):len(d.labels)]
	}
	if !d.old {
		o.Why = d.str()
	}
	if !d.noFile {
		o.File = d.str()
	}
	return o
}

func (d *dec) output() Output {
	o := Output{Seq: d.int(), Tool: d.str(), Text: d.str()}
	if n := d.count(1); n > 0 {
		o.Labels = make([]string, 0, n)
		for ; n > 0; n-- {
			o.Labels = append(o.Labels, d.str())
		}
	}
	return o
}

func (d *dec) counter() Count {
	return Count{Allow: d.int(), Ask: d.int(), Deny: d.int(), Total: d.int()}
}

func (d *dec) account(a *Account) {
	a.Models = getMap(d, a.Models, 4, (*dec).modelUsage)
	a.Call = openCall{Model: d.str(), In: d.varint(), Out: d.varint(), Measured: d.bool(), Open: d.bool()}
	a.TurnContext = d.int()
}

func (d *dec) modelUsage() ModelUsage {
	return ModelUsage{Calls: d.varint(), Input: d.varint(), Output: d.varint(), Counted: d.varint()}
}

func (d *dec) call() Call {
	return Call{Seq: d.int(), Name: d.str(), Decision: d.action(), Time: d.time(),
		CallID: d.str(), Command: d.str(), Outcome: d.str()}
}

// record applies one payload to s; a snapshot starts from an empty
// session, and only the first record may be one.
func (d *dec) record(s *Session, first bool) {
	kind := d.byte()
	switch {
	case kind == recSnapshot && first:
		*s = Session{}
	case kind == recDelta && !first:
	default:
		d.fail("unexpected record kind %d", kind)
		return
	}
	id := d.str()
	if !first && id != s.ID {
		d.fail("record of another session")
		return
	}
	s.ID = id
	s.Created = d.time()
	s.Updated = d.time()
	s.Seq = d.int()
	var originAt, callAt *[]int32
	if d.sp != nil {
		originAt, callAt = &d.sp.origins, &d.sp.calls
	}
	s.Origins = getSlice(d, s.Origins, originAt, 4, (*dec).origin)
	s.Context = getSlice(d, s.Context, nil, 1, (*dec).int)
	s.Prints = getPrints(d, s.Prints, d.sp)
	// An edit may drop fingerprints: the index is built again when asked.
	s.index = nil
	s.Calls = getSlice(d, s.Calls, callAt, 8, (*dec).call)
	s.Approvals = getMap(d, s.Approvals, 1, (*dec).bool)
	s.Retries = getMap(d, s.Retries, 1, (*dec).int)
	s.Reads = getMap(d, s.Reads, 1, (*dec).str)
	if !d.old {
		s.Counts = getMap(d, s.Counts, 4, (*dec).counter)
		s.Files = getMap(d, s.Files, 1, (*dec).str)
		if d.i < len(d.s) {
			d.account(&s.Account)
			if d.i < len(d.s) {
				s.Prompt = d.str()
			}
			if d.i < len(d.s) {
				s.Outputs = getSlice(d, s.Outputs, nil, 4, (*dec).output)
			}
		}
	}
	if d.err == nil && d.i != len(d.s) {
		d.fail("%d stray bytes", len(d.s)-d.i)
	}
}

// getSlice applies a slice edit; size is the least bytes an element
// takes. When at is not nil it is edited alike, with where each
// appended element is encoded.
func getSlice[T any](d *dec, cur []T, at *[]int32, size int, get func(*dec) T) []T {
	drop, keep := d.uvarint(), d.uvarint()
	if drop > uint64(len(cur)) || keep > uint64(len(cur))-drop {
		d.fail("edit of %d elements keeps %d after dropping %d", len(cur), keep, drop)
		return cur
	}
	n := d.count(size)
	if d.err != nil {
		return cur
	}
	cur = reuse(cur, int(drop), int(keep), n)
	if at != nil {
		*at = reuse(*at, int(drop), int(keep), n)
	}
	for i := 0; i < n; i++ {
		if at != nil {
			*at = append(*at, int32(d.base+d.i))
		}
		cur = append(cur, get(d))
	}
	if len(cur) == 0 {
		return nil
	}
	return cur
}

// reuse applies the drop and keep of an edit to cur and makes room for
// n more. Dropped elements are copied over rather than sliced off, so
// that trimming calls at the cap does not use up the capacity and
// reallocate on the next append; a snapshot's slices get some room for
// the deltas that follow it.
func reuse[T any](cur []T, drop, keep, n int) []T {
	if drop > 0 {
		copy(cur, cur[drop:drop+keep])
	}
	cur = cur[:keep]
	if len(cur) == 0 && n > 0 {
		return make([]T, 0, n+n/4+8)
	}
	return slices.Grow(cur, n)
}

// getPrints is getSlice for fingerprints, in runs of one origin: a
// session holds up to 50,000 and replays them on every update.
func getPrints(d *dec, cur []Print, sp *spans) []Print {
	drop, keep := d.uvarint(), d.uvarint()
	if drop > uint64(len(cur)) || keep > uint64(len(cur))-drop {
		d.fail("edit of %d fingerprints keeps %d after dropping %d", len(cur), keep, drop)
		return cur
	}
	n := d.count(8)
	if d.err != nil {
		return cur
	}
	if sp != nil {
		sp.prints = editRuns(sp.prints, len(cur), int(drop), int(keep))
	}
	cur = reuse(cur, int(drop), int(keep), n)
	for n > 0 {
		run := d.uvarint()
		o := d.int()
		if d.err != nil {
			return cur
		}
		if run == 0 || run > uint64(n) {
			d.fail("run of %d fingerprints where %d remain", run, n)
			return cur
		}
		if uint64(len(d.s)-d.i)/8 < run {
			d.fail("truncated")
			return cur
		}
		if sp != nil {
			sp.prints = append(sp.prints, printRun{at: int32(len(cur)), off: int32(d.base + d.i), origin: o})
		}
		s := d.s[d.i : d.i+8*int(run)]
		for i := 0; i+8 <= len(s); i += 8 {
			cur = append(cur, Print{Hash: le64(s[i:]), Origin: o})
		}
		d.i += len(s)
		n -= int(run)
	}
	if sp != nil {
		sp.nprints = len(cur)
	}
	if len(cur) == 0 {
		return nil
	}
	return cur
}

// le64 is the little-endian number in s's first 8 bytes.
func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func getMap[V any](d *dec, m map[string]V, size int, get func(*dec) V) map[string]V {
	for n := d.count(1); n > 0; n-- {
		delete(m, d.str())
	}
	n := d.count(1 + size)
	if n > 0 && m == nil {
		m = make(map[string]V, n)
	}
	for ; n > 0; n-- {
		k := d.str()
		m[k] = get(d)
	}
	if len(m) == 0 {
		return nil
	}
	return m
}
