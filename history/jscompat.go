package history

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// This file holds the small pieces of JavaScript semantics the original's
// output depends on: string lengths in UTF-16 code units, String.prototype.trim,
// Number.prototype.toFixed, JSON.stringify, and the FNV-1a fingerprint over
// UTF-16 code units.

// jsLen returns the length of s in UTF-16 code units, as JavaScript's
// String.prototype.length.
func jsLen(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// jsSlice returns the longest prefix of s holding at most n UTF-16 code
// units. JavaScript's slice(0, n) can split a surrogate pair and leave a lone
// surrogate, which valid UTF-8 cannot hold; then the prefix stops one unit
// short (see the package documentation, "Differences").
func jsSlice(s string, n int) string {
	units := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if units+w > n {
			return s[:i]
		}
		units += w
	}
	return s
}

// isJSSpace reports whether r is removed by String.prototype.trim:
// WhiteSpace (TAB, VT, FF, SP, NBSP, ZWNBSP, Zs) and LineTerminator.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\v', '\f', ' ', 0xA0, 0xFEFF, '\n', '\r', 0x2028, 0x2029,
		0x1680, 0x202F, 0x205F, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// jsTrim is String.prototype.trim.
func jsTrim(s string) string { return strings.TrimFunc(s, isJSSpace) }

// jsToFixed1 is Number.prototype.toFixed(1) for a non-negative finite x: the
// n with n/10 - x closest to zero, the larger n on a tie.
func jsToFixed1(x float64) string {
	if x >= 1e21 || math.IsNaN(x) || math.IsInf(x, 0) {
		return jsNumber(x)
	}
	r := new(big.Rat)
	r.SetFloat64(x)
	r.Mul(r, big.NewRat(10, 1))
	r.Add(r, big.NewRat(1, 2))
	n := new(big.Int).Quo(r.Num(), r.Denom()) // floor for non-negative
	s := n.String()
	if len(s) < 2 {
		s = "0" + s
	}
	return s[:len(s)-1] + "." + s[len(s)-1:]
}

// jsNumber formats x as JavaScript's Number.prototype.toString does.
func jsNumber(x float64) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	case x == 0:
		return "0"
	}
	abs := math.Abs(x)
	if abs >= 1e-6 && abs < 1e21 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	s := strconv.FormatFloat(x, 'e', -1, 64) // like 1e+21, 1.5e-07
	mant, exp, _ := strings.Cut(s, "e")
	sign := exp[0]
	digits := strings.TrimLeft(exp[1:], "0")
	return mant + "e" + string(sign) + digits
}

// jsQuote encodes s as JSON.stringify does: only '"', '\\' and control
// characters are escaped.
func jsQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				const hex = "0123456789abcdef"
				b.WriteString(`\u00`)
				b.WriteByte(hex[r>>4])
				b.WriteByte(hex[r&0xF])
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// jsStringify re-serializes the JSON value raw the way JSON.stringify would
// after JSON.parse: compact, strings re-escaped minimally, numbers in
// JavaScript's shortest form, and object keys in JavaScript's property
// order: array-index keys ("0" to "4294967294" in canonical form) first in
// ascending order, then the other keys in the order written. A duplicate
// key keeps the place of its first occurrence and the value of its last.
func jsStringify(raw []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := jsParse(dec)
	if err != nil {
		return "", err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if err == nil {
			err = errors.New("trailing data after JSON value")
		}
		return "", err
	}
	var b strings.Builder
	if err := v.write(&b); err != nil {
		return "", err
	}
	return b.String(), nil
}

// jsValue is a parsed JSON value with JavaScript's object semantics.
type jsValue struct {
	scalar string     // the serialized form of a string, number, bool or null
	array  []*jsValue // elements of an array
	keys   []string   // keys of an object, in first-occurrence order
	fields map[string]*jsValue
	kind   byte // 's' scalar, 'a' array, 'o' object
}

// jsParse reads one value from dec.
func jsParse(dec *json.Decoder) (*jsValue, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '[':
			a := &jsValue{kind: 'a'}
			for dec.More() {
				e, err := jsParse(dec)
				if err != nil {
					return nil, err
				}
				a.array = append(a.array, e)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return a, nil
		case '{':
			o := &jsValue{kind: 'o', fields: map[string]*jsValue{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, errors.New("object key is not a string")
				}
				e, err := jsParse(dec)
				if err != nil {
					return nil, err
				}
				if _, dup := o.fields[k]; !dup {
					o.keys = append(o.keys, k)
				}
				o.fields[k] = e
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return o, nil
		}
		return nil, errors.New("unexpected delimiter " + v.String())
	case string:
		return &jsValue{kind: 's', scalar: jsQuote(v)}, nil
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, err
		}
		if math.IsInf(f, 0) {
			return &jsValue{kind: 's', scalar: "null"}, nil // JSON.stringify(Infinity)
		}
		return &jsValue{kind: 's', scalar: jsNumber(f)}, nil
	case bool:
		return &jsValue{kind: 's', scalar: strconv.FormatBool(v)}, nil
	case nil:
		return &jsValue{kind: 's', scalar: "null"}, nil
	}
	return nil, errors.New("unexpected JSON token")
}

// write serializes v compactly.
func (v *jsValue) write(b *strings.Builder) error {
	switch v.kind {
	case 'a':
		b.WriteByte('[')
		for i, e := range v.array {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := e.write(b); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case 'o':
		b.WriteByte('{')
		for i, k := range jsKeyOrder(v.keys) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(jsQuote(k))
			b.WriteByte(':')
			if err := v.fields[k].write(b); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		b.WriteString(v.scalar)
	}
	return nil
}

// jsArrayIndex reports whether k is an array index: the canonical decimal
// form of an integer from 0 to 2^32-2.
func jsArrayIndex(k string) (uint64, bool) {
	if k == "" || len(k) > 10 || (len(k) > 1 && k[0] == '0') {
		return 0, false
	}
	n, err := strconv.ParseUint(k, 10, 64)
	if err != nil || n > math.MaxUint32-1 {
		return 0, false
	}
	return n, true
}

// jsKeyOrder returns keys in JavaScript's own-property order: array indices
// ascending, then the rest in the given order.
func jsKeyOrder(keys []string) []string {
	type ix struct {
		n uint64
		k string
	}
	var idx []ix
	var rest []string
	for _, k := range keys {
		if n, ok := jsArrayIndex(k); ok {
			idx = append(idx, ix{n, k})
		} else {
			rest = append(rest, k)
		}
	}
	if len(idx) == 0 {
		return keys
	}
	slices.SortFunc(idx, func(a, b ix) int { return cmp.Compare(a.n, b.n) })
	out := make([]string, 0, len(keys))
	for _, e := range idx {
		out = append(out, e.k)
	}
	return append(out, rest...)
}

// fnv1a32x2 is the original's sandbox fingerprint: two FNV-1a hashes over
// the UTF-16 code units of s, seeded 2166136261 and 2166136261^0x9e3779b9,
// as 8 hex digits each, cut to the first 12.
func fnv1a32x2(s string) string {
	h1 := uint32(2166136261)
	h2 := uint32(2166136261) ^ 0x9e3779b9
	for _, u := range utf16.Encode([]rune(s)) {
		h1 = (h1 ^ uint32(u)) * 16777619
		h2 = (h2 ^ uint32(u)) * 16777619
	}
	hex8 := func(h uint32) string {
		s := strconv.FormatUint(uint64(h), 16)
		return strings.Repeat("0", 8-len(s)) + s
	}
	return (hex8(h1) + hex8(h2))[:12]
}

// validUTF8 replaces invalid bytes so string lengths are well defined.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
