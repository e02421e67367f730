package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"math/big"
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
// after JSON.parse: compact, key order kept, strings re-escaped minimally,
// numbers in JavaScript's shortest form. Duplicate keys are kept as they are
// (JSON.parse would keep only the last value, at the first key's place).
func jsStringify(raw []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var b strings.Builder
	// Stack of containers: true for object. expectKey tracks object keys.
	type frame struct {
		object bool
		n      int
	}
	var stack []frame
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", err
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			b.WriteRune(rune(d))
			continue
		}
		// Separator before a value or key.
		if len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.object {
				if top.n%2 == 0 && top.n > 0 {
					b.WriteByte(',')
				} else if top.n%2 == 1 {
					b.WriteByte(':')
				}
			} else if top.n > 0 {
				b.WriteByte(',')
			}
			top.n++
		}
		switch v := tok.(type) {
		case json.Delim:
			b.WriteRune(rune(v))
			stack = append(stack, frame{object: v == '{'})
		case string:
			b.WriteString(jsQuote(v))
		case json.Number:
			f, err := strconv.ParseFloat(string(v), 64)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				return "", err
			}
			if math.IsInf(f, 0) {
				b.WriteString("null") // JSON.stringify(Infinity)
			} else {
				b.WriteString(jsNumber(f))
			}
		case bool:
			b.WriteString(strconv.FormatBool(v))
		case nil:
			b.WriteString("null")
		}
	}
	return b.String(), nil
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
