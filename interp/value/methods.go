package value

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// ErrNoMethod reports that a name is not a builtin method of the receiver;
// CallMethod wraps it with the name so callers can fall back (for example
// to an executable field of an object).
var ErrNoMethod = errors.New("no such builtin method")

// CallMethod applies the builtin method name to recv with args, following
// JavaScript semantics (negative slice indices, split on "" into
// characters…). Type checks (.isString() …) work on every receiver.
// Unknown names return an error wrapping ErrNoMethod.
func CallMethod(recv any, name string, args []any) (any, error) {
	if out, ok := typeCheck(recv, name); ok {
		return out, nil
	}
	switch r := recv.(type) {
	case string:
		return stringMethod(r, name, args)
	case []any:
		return arrayMethod(r, name, args)
	case *Object:
		return objectMethod(r, name, args)
	case float64:
		switch name {
		case "toString":
			return FormatNumber(r), nil
		case "toFixed":
			digits := argInt(args, 0, 0)
			if digits < 0 || digits > 100 {
				return nil, inputError("pass a whole number of digits from 0 to 100",
					".toFixed() digits must be between 0 and 100, got %s", FormatNumber(argNumber(args, 0, 0)))
			}
			return fmt.Sprintf("%.*f", digits, r), nil
		case "greaterThan":
			return r > argNumber(args, 0, 0), nil
		case "lessThan":
			return r < argNumber(args, 0, 0), nil
		case "greaterThanOrEqual":
			return r >= argNumber(args, 0, 0), nil
		case "lessThanOrEqual":
			return r <= argNumber(args, 0, 0), nil
		}
	case bool:
		if name == "toString" {
			return Text(r), nil
		}
	}
	return nil, fmt.Errorf("%w: .%s() on %s", ErrNoMethod, name, KindName(recv))
}

func typeCheck(recv any, name string) (any, bool) {
	switch name {
	case "isDefined":
		// As mlld: null is not a defined value either.
		_, undef := recv.(Undefined)
		return !undef && recv != nil, true
	case "isNull":
		return recv == nil, true
	case "isString":
		_, ok := recv.(string)
		return ok, true
	case "isNumber":
		_, ok := recv.(float64)
		return ok, true
	case "isBoolean":
		_, ok := recv.(bool)
		return ok, true
	case "isArray":
		_, ok := recv.([]any)
		return ok, true
	case "isObject":
		_, ok := recv.(*Object)
		return ok, true
	case "isEmpty":
		switch v := recv.(type) {
		case nil, Undefined:
			return true, true
		case string:
			return v == "", true
		case []any:
			return len(v) == 0, true
		case *Object:
			return v.Len() == 0, true
		}
		return false, true
	}
	return nil, false
}

func stringMethod(s, name string, args []any) (any, error) {
	// The methods that do not count characters need no rune slice (a
	// copy of s). For valid UTF-8 without a position argument, the tests
	// below read the same text as their rune-slice forms.
	switch name {
	case "includes", "startsWith", "endsWith":
		if len(args) < 2 && utf8.ValidString(s) {
			sub := argString(args, 0)
			switch name {
			case "includes":
				return strings.Contains(s, sub), nil
			case "startsWith":
				return strings.HasPrefix(s, sub), nil
			}
			return strings.HasSuffix(s, sub), nil
		}
	case "replace":
		return strings.Replace(s, argString(args, 0), argString(args, 1), 1), nil
	case "replaceAll":
		return strings.ReplaceAll(s, argString(args, 0), argString(args, 1)), nil
	case "toString", "valueOf":
		return s, nil
	case "length":
		return float64(utf8.RuneCountInString(s)), nil
	}
	rs := []rune(s)
	n := len(rs)
	switch name {
	case "length":
		return float64(n), nil
	case "toString", "valueOf":
		return s, nil
	case "includes":
		sub := argString(args, 0)
		from := clampIndex(argInt(args, 1, 0), n)
		return strings.Contains(string(rs[from:]), sub), nil
	case "startsWith":
		from := clampIndex(argInt(args, 1, 0), n)
		return strings.HasPrefix(string(rs[from:]), argString(args, 0)), nil
	case "endsWith":
		end := n
		if len(args) > 1 {
			end = clampIndex(argInt(args, 1, float64(n)), n)
		}
		return strings.HasSuffix(string(rs[:end]), argString(args, 0)), nil
	case "indexOf":
		return float64(runeIndex(s, argString(args, 0))), nil
	case "lastIndexOf":
		i := strings.LastIndex(s, argString(args, 0))
		if i < 0 {
			return float64(-1), nil
		}
		return float64(utf8.RuneCountInString(s[:i])), nil
	case "trim":
		return strings.TrimFunc(s, unicode.IsSpace), nil
	case "trimStart", "trimLeft":
		return strings.TrimLeftFunc(s, unicode.IsSpace), nil
	case "trimEnd", "trimRight":
		return strings.TrimRightFunc(s, unicode.IsSpace), nil
	case "toUpperCase", "toLocaleUpperCase":
		return strings.ToUpper(s), nil
	case "toLowerCase", "toLocaleLowerCase":
		return strings.ToLower(s), nil
	case "slice":
		a, b := sliceBounds(args, n)
		return string(rs[a:b]), nil
	case "substring":
		a := clampIndex(argInt(args, 0, 0), n)
		b := n
		if len(args) > 1 && !isNullish(args[1]) {
			b = clampIndex(argInt(args, 1, float64(n)), n)
		}
		if a > b {
			a, b = b, a
		}
		return string(rs[a:b]), nil
	case "substr":
		a := relIndex(argInt(args, 0, 0), n)
		l := n - a
		if len(args) > 1 {
			l = argInt(args, 1, 0)
		}
		b := clampIndex(a+max(l, 0), n)
		return string(rs[a:b]), nil
	case "charAt":
		i := argInt(args, 0, 0)
		if i < 0 || i >= n {
			return "", nil
		}
		return string(rs[i]), nil
	case "at":
		if i, ok := atIndex(args, n); ok {
			return string(rs[i]), nil
		}
		return Undefined{}, nil
	case "replace":
		return replaceString(name, s, argString(args, 0), argString(args, 1), 1)
	case "replaceAll":
		return replaceString(name, s, argString(args, 0), argString(args, 1), -1)
	case "split":
		return splitString(s, args), nil
	case "match":
		return matchString(s, argString(args, 0))
	case "padStart", "padEnd":
		return pad(name, s, args)
	case "repeat":
		c := argNumber(args, 0, 0)
		if c < 0 || math.IsInf(c, 0) {
			return nil, inputError("pass a count of zero or more",
				".repeat() count must be a finite number of zero or more, got %s", FormatNumber(c))
		}
		count := toInt(c)
		if len(s) > 0 && count > MaxString/len(s) {
			return nil, tooLarge("repeat", "repeat a shorter string or fewer times")
		}
		return strings.Repeat(s, count), nil
	case "concat":
		var b strings.Builder
		b.WriteString(s)
		for _, a := range args {
			b.WriteString(Text(a))
		}
		return b.String(), nil
	}
	return nil, fmt.Errorf("%w: .%s() on string", ErrNoMethod, name)
}

func arrayMethod(arr []any, name string, args []any) (any, error) {
	n := len(arr)
	switch name {
	case "length":
		return float64(n), nil
	case "includes":
		return indexOf(arr, arg(args, 0)) >= 0, nil
	case "indexOf":
		return float64(indexOf(arr, arg(args, 0))), nil
	case "lastIndexOf":
		want := arg(args, 0)
		for i := n - 1; i >= 0; i-- {
			if strictEqual(arr[i], want) {
				return float64(i), nil
			}
		}
		return float64(-1), nil
	case "join":
		sep := ","
		if len(args) > 0 && !isUndefined(args[0]) {
			sep = Text(args[0])
		}
		return CatchLimit(func() string { return joinArray(arr, sep) })
	case "toString":
		return CatchLimit(func() string { return joinArray(arr, ",") })
	case "slice":
		a, b := sliceBounds(args, n)
		return append([]any{}, arr[a:b]...), nil
	case "concat":
		out := append([]any{}, arr...)
		for _, a := range args {
			if more, ok := a.([]any); ok {
				out = append(out, more...)
			} else {
				out = append(out, a)
			}
		}
		return out, nil
	case "reverse":
		out := make([]any, n)
		for i, e := range arr {
			out[n-1-i] = e
		}
		return out, nil
	case "sort":
		out := append([]any{}, arr...)
		sort.SliceStable(out, func(i, j int) bool { return jsSortLess(out[i], out[j]) })
		return out, nil
	case "flat":
		depth := 1
		if len(args) > 0 {
			depth = argInt(args, 0, 1)
		}
		return flatten(arr, depth), nil
	case "at":
		if i, ok := atIndex(args, n); ok {
			return arr[i], nil
		}
		return Undefined{}, nil
	case "first":
		if n == 0 {
			return Undefined{}, nil
		}
		return arr[0], nil
	case "last":
		if n == 0 {
			return Undefined{}, nil
		}
		return arr[n-1], nil
	}
	return nil, fmt.Errorf("%w: .%s() on array", ErrNoMethod, name)
}

func objectMethod(o *Object, name string, args []any) (any, error) {
	switch name {
	case "keys":
		out := make([]any, len(o.Keys))
		for i, k := range o.Keys {
			out[i] = k
		}
		return out, nil
	case "values":
		out := make([]any, len(o.Keys))
		for i, k := range o.Keys {
			out[i] = o.Values[k]
		}
		return out, nil
	case "entries":
		out := make([]any, len(o.Keys))
		for i, k := range o.Keys {
			out[i] = []any{k, o.Values[k]}
		}
		return out, nil
	case "includes", "has", "hasOwnProperty":
		_, ok := o.Values[Text(arg(args, 0))]
		return ok, nil
	case "length":
		return float64(o.Len()), nil
	}
	return nil, fmt.Errorf("%w: .%s() on object", ErrNoMethod, name)
}

func arg(args []any, i int) any {
	if i < len(args) {
		return args[i]
	}
	return Undefined{}
}

// argString converts an argument the way JavaScript's String() does, with
// a missing argument reading as "undefined".
func argString(args []any, i int) string {
	v := arg(args, i)
	if isUndefined(v) {
		return "undefined"
	}
	return Text(v)
}

// maxArgInt bounds integer arguments. JavaScript accepts any double as an
// index or count, but past this every index means "beyond the end", and
// clamping keeps the int conversion and index arithmetic from
// overflowing (int(1e23) is negative).
const maxArgInt = math.MaxInt32

// argInt reads argument i as an integer: NaN is 0, fractions truncate
// toward zero, and ±Infinity or huge values clamp to ±maxArgInt.
func argInt(args []any, i int, dflt float64) int {
	return toInt(argNumber(args, i, dflt))
}

func toInt(f float64) int {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= maxArgInt:
		return maxArgInt
	case f <= -maxArgInt:
		return -maxArgInt
	}
	return int(f)
}

// atIndex resolves the argument of .at() against length n, counting
// negative indices from the end; ok is false when it is out of range.
func atIndex(args []any, n int) (int, bool) {
	i := argInt(args, 0, 0)
	if i < 0 {
		i += n
	}
	return i, i >= 0 && i < n
}

// tooLarge is the error of .repeat(), .padStart() or .padEnd() asked for
// more than MaxString bytes: refused before allocating.
func tooLarge(method, hint string) *LimitError {
	le := StringLimitError("."+method+"()", MaxString)
	le.Hint = hint + "; " + le.Hint
	return le
}

func argNumber(args []any, i int, dflt float64) float64 {
	v := arg(args, i)
	switch x := v.(type) {
	case Undefined:
		return dflt
	case nil:
		return 0
	case float64:
		if math.IsNaN(x) {
			return 0
		}
		return x
	case bool:
		if x {
			return 1
		}
		return 0
	case string:
		if f, ok := ParseNumber(x); ok {
			return f
		}
		if strings.TrimSpace(x) == "" {
			return 0
		}
	}
	return dflt
}

func isUndefined(v any) bool {
	_, ok := v.(Undefined)
	return ok
}

func clampIndex(i, n int) int {
	return min(max(i, 0), n)
}

// relIndex resolves a possibly negative JavaScript index against length n.
func relIndex(i, n int) int {
	if i < 0 {
		i += n
	}
	return clampIndex(i, n)
}

func sliceBounds(args []any, n int) (int, int) {
	a := relIndex(argInt(args, 0, 0), n)
	b := n
	if len(args) > 1 && !isUndefined(args[1]) {
		b = relIndex(argInt(args, 1, float64(n)), n)
	}
	if b < a {
		b = a
	}
	return a, b
}

func runeIndex(s, sub string) int {
	i := strings.Index(s, sub)
	if i < 0 {
		return -1
	}
	return utf8.RuneCountInString(s[:i])
}

func splitString(s string, args []any) []any {
	limit := -1
	if len(args) > 1 && !isUndefined(args[1]) {
		limit = argInt(args, 1, -1)
	}
	var parts []string
	switch {
	case len(args) == 0 || isUndefined(args[0]):
		parts = []string{s}
	case Text(args[0]) == "":
		for _, r := range s {
			parts = append(parts, string(r))
		}
	default:
		parts = strings.Split(s, Text(args[0]))
	}
	if limit >= 0 && limit < len(parts) {
		parts = parts[:limit]
	}
	out := make([]any, len(parts))
	for i, p := range parts {
		out[i] = p
	}
	return out
}

// regexps keeps compiled .match() patterns: a long-lived engine decides
// the same guards over and over, and one decision often asks the same
// pattern of several inputs. Bounded: past maxCachedRegexps it starts
// over rather than grow with scripts that build patterns from data.
var regexps struct {
	sync.Mutex
	m map[string]*regexp.Regexp
}

const maxCachedRegexps = 512

func compileCached(pattern string) (*regexp.Regexp, error) {
	regexps.Lock()
	re := regexps.m[pattern]
	regexps.Unlock()
	if re != nil {
		return re, nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	regexps.Lock()
	if regexps.m == nil || len(regexps.m) >= maxCachedRegexps {
		regexps.m = map[string]*regexp.Regexp{}
	}
	regexps.m[pattern] = re
	regexps.Unlock()
	return re, nil
}

// matchString treats the pattern as a regular expression (a /…/flags form
// is accepted) and returns the match and its groups, or null.
func matchString(s, pattern string) (any, error) {
	flags := ""
	if len(pattern) >= 2 && pattern[0] == '/' {
		if end := strings.LastIndex(pattern, "/"); end > 0 {
			flags = pattern[end+1:]
			pattern = pattern[1:end]
		}
	}
	prefix := ""
	if strings.Contains(flags, "i") {
		prefix += "(?i)"
	}
	if strings.Contains(flags, "m") {
		prefix += "(?m)"
	}
	if strings.Contains(flags, "s") {
		prefix += "(?s)"
	}
	re, err := compileCached(prefix + pattern)
	if err != nil {
		detail := err.Error()
		var se *syntax.Error
		if errors.As(err, &se) {
			detail = se.Code.String()
		}
		return nil, inputError(`escape regexp metacharacters with \ (for example \( or \.) to match them literally`,
			".match() got an invalid regular expression %q: %s", pattern, detail)
	}
	if strings.Contains(flags, "g") {
		all := re.FindAllString(s, -1)
		if all == nil {
			return nil, nil
		}
		out := make([]any, len(all))
		for i, m := range all {
			out[i] = m
		}
		return out, nil
	}
	m := re.FindStringSubmatchIndex(s)
	if m == nil {
		return nil, nil
	}
	out := make([]any, 0, len(m)/2)
	for i := 0; i < len(m); i += 2 {
		if m[i] < 0 {
			out = append(out, Undefined{})
			continue
		}
		out = append(out, s[m[i]:m[i+1]])
	}
	return out, nil
}

// pad implements .padStart()/.padEnd(): fill is repeated and cut to
// make the string target characters long.
func pad(name, s string, args []any) (any, error) {
	target := argInt(args, 0, 0)
	fill := " "
	if len(args) > 1 && !isUndefined(args[1]) {
		fill = Text(args[1])
	}
	missing := target - utf8.RuneCountInString(s)
	if missing <= 0 || fill == "" {
		return s, nil
	}
	fr := []rune(fill)
	whole, part := missing/len(fr), missing%len(fr)
	if whole > (MaxString-len(s))/len(fill)-1 {
		return nil, tooLarge(name, "pad to a smaller length")
	}
	padding := strings.Repeat(fill, whole) + string(fr[:part])
	if name == "padStart" {
		return padding + s, nil
	}
	return s + padding, nil
}

// strictEqual is JavaScript's SameValueZero as used by includes/indexOf:
// primitives by value, structures by identity.
func strictEqual(a, b any) bool {
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	case *Object:
		y, ok := b.(*Object)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && (x == y || math.IsNaN(x) && math.IsNaN(y))
	case Callable:
		y, ok := b.(Callable)
		return ok && x == y
	}
	switch b.(type) {
	case []any, *Object, Callable:
		return false
	}
	return a == b
}

func indexOf(arr []any, want any) int {
	for i, e := range arr {
		if strictEqual(e, want) {
			return i
		}
	}
	return -1
}

// joinArray joins like Array#join: null and undefined become empty, nested
// arrays join with commas; objects use compact JSON rather than
// "[object Object]" because that is what a script means.
func joinArray(arr []any, sep string) string {
	parts := make([]string, len(arr))
	size := 0
	for i, e := range arr {
		switch v := e.(type) {
		case nil, Undefined:
		case []any:
			parts[i] = joinArray(v, ",")
		default:
			parts[i] = Text(v)
		}
		size += len(parts[i])
		if i > 0 {
			size += len(sep)
		}
		if size > MaxString {
			panic(StringLimitError(".join()", MaxString))
		}
	}
	return strings.Join(parts, sep)
}

// replaceString is .replace() (n = 1) and .replaceAll() (n = -1) of
// literal text, refused before allocating when the result would pass
// MaxString: a one-byte pattern and a large replacement multiply.
func replaceString(method, s, old, repl string, n int) (string, error) {
	if len(repl) > len(old) {
		count := strings.Count(s, old)
		if old == "" {
			count = utf8.RuneCountInString(s) + 1
		}
		if n >= 0 {
			count = min(count, n)
		}
		if count > 0 && (len(repl)-len(old)) > (MaxString-len(s))/count {
			return "", StringLimitError("."+method+"()", MaxString)
		}
	}
	return strings.Replace(s, old, repl, n), nil
}

// jsSortLess is Array#sort's default order: undefined last, everything else
// by its string form.
func jsSortLess(a, b any) bool {
	if isUndefined(a) {
		return false
	}
	if isUndefined(b) {
		return true
	}
	return sortKey(a) < sortKey(b)
}

func sortKey(v any) string {
	if arr, ok := v.([]any); ok {
		return joinArray(arr, ",")
	}
	return Text(v)
}

func flatten(arr []any, depth int) []any {
	out := make([]any, 0, len(arr))
	for _, e := range arr {
		if inner, ok := e.([]any); ok && depth > 0 {
			out = append(out, flatten(inner, depth-1)...)
			continue
		}
		out = append(out, e)
	}
	return out
}
