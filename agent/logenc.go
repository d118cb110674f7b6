package agent

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// AppendJSON appends the record's decision-log line (without the
// newline) to b: what encoding/json marshals, byte for byte
// (TestLogRecordMatchesJSON), without reflection: a hook process writes
// one record and exits, and building encoding/json's encoders for Record
// and its input maps was a measurable part of its start-up.
func (r *Record) AppendJSON(b []byte) []byte {
	b = append(b, `{"time":`...)
	b = appendTime(b, r.Time)
	b = append(b, `,"session":`...)
	b = appendString(b, r.Session)
	b = append(b, `,"event":`...)
	b = appendString(b, string(r.Event))
	b = appendField(b, "tool", r.Tool)
	b = appendField(b, "call_id", r.CallID)
	b = appendField(b, "cwd", r.Cwd)
	if r.Confined {
		b = append(b, `,"confined":true`...)
	}
	b = append(b, `,"decision":`...)
	b = appendString(b, r.Decision.String())
	b = appendField(b, "reason", r.Reason)
	b = appendField(b, "rule", r.Rule)
	b = appendField(b, "guard", r.Guard)
	b = appendField(b, "class", string(r.Class))
	if len(r.Labels) > 0 {
		b = append(b, `,"labels":[`...)
		for i, l := range r.Labels {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, l)
		}
		b = append(b, ']')
	}
	if a := r.Approval; a != nil {
		b = append(b, `,"approval":{"question":`...)
		b = appendString(b, a.Question)
		b = append(b, `,"answer":`...)
		b = appendString(b, string(a.Answer))
		b = appendField(b, "reused", a.Reused)
		b = append(b, '}')
	}
	if len(r.Input) > 0 {
		b = append(b, `,"input":`...)
		b = appendAny(b, r.Input)
	}
	if len(r.Brought) > 0 {
		b = append(b, `,"brought":[`...)
		for i, br := range r.Brought {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"labels":[`...)
			for j, l := range br.Labels {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendString(b, l)
			}
			b = append(b, ']')
			if br.Context {
				b = append(b, `,"context":true`...)
			}
			if len(br.Prints) > 0 {
				b = append(b, `,"prints":[`...)
				for j, h := range br.Prints {
					if j > 0 {
						b = append(b, ',')
					}
					b = strconv.AppendUint(b, h, 10)
				}
				b = append(b, ']')
			}
			b = appendField(b, "why", br.Why)
			b = appendField(b, "file", br.File)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(r.Hashes) > 0 {
		b = append(b, `,"hashes":{`...)
		keys := make([]string, 0, len(r.Hashes))
		for k := range r.Hashes {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			b = appendString(b, r.Hashes[k])
		}
		b = append(b, '}')
	}
	b = append(b, `,"latency_us":`...)
	b = strconv.AppendInt(b, r.LatencyUS, 10)
	b = append(b, `,"policy_hash":`...)
	b = appendString(b, r.PolicyHash)
	return append(b, '}')
}

// appendField appends an omitempty string field.
func appendField(b []byte, name, s string) []byte {
	if s == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendString(b, s)
}

func appendTime(b []byte, t time.Time) []byte {
	if y := t.Year(); y < 0 || y >= 10000 {
		// Out of RFC 3339's range: encoding/json refuses it; say so in
		// the line rather than drop the record.
		return appendString(b, t.String())
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// appendAny appends a value of a decoded event: maps, slices, strings,
// bools, nil and numbers; anything else through encoding/json.
func appendAny(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return appendString(b, x)
	case bool:
		return strconv.AppendBool(b, x)
	case float64:
		return appendFloat(b, x)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case map[string]any:
		if x == nil {
			return append(b, "null"...)
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			b = appendAny(b, x[k])
		}
		return append(b, '}')
	case []any:
		if x == nil {
			return append(b, "null"...)
		}
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendAny(b, e)
		}
		return append(b, ']')
	}
	j, err := json.Marshal(v)
	if err != nil {
		return appendString(b, "[unencodable: "+err.Error()+"]")
	}
	return append(b, j...)
}

// appendFloat formats like encoding/json (ES6 number formatting);
// NaN and infinities, which JSON cannot hold, as strings.
func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return appendString(b, strconv.FormatFloat(f, 'g', -1, 64))
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b) - start
		if n >= 4 && b[len(b)-4] == 'e' && b[len(b)-3] == '-' && b[len(b)-2] == '0' {
			b[len(b)-2] = b[len(b)-1]
			b = b[:len(b)-1]
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string the way encoding/json does:
// HTML-significant characters and U+2028/U+2029 escaped, invalid UTF-8
// replaced by U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
