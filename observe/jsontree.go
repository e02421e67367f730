package observe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// MaxDepth bounds the nesting of a request body that is attributed; a
// deeper body is forwarded and recorded as one segment.
const MaxDepth = 256

// value is a JSON value of a request body with the span of its bytes.
type value struct {
	kind       byte // '{', '[', '"', or 'l' for a number, true, false or null
	start, end int  // the value's bytes in the body: body[start:end]
	keys       []string
	kids       []*value // members of an object (beside keys) or elements of an array
}

// get returns the member name of an object, or nil.
func (v *value) get(name string) *value {
	if v == nil || v.kind != '{' {
		return nil
	}
	for i, k := range v.keys {
		if k == name {
			return v.kids[i]
		}
	}
	return nil
}

// items returns the elements of an array (nil for anything else).
func (v *value) items() []*value {
	if v == nil || v.kind != '[' {
		return nil
	}
	return v.kids
}

// str returns the decoded string of a string value, and whether it is one.
func (v *value) str(body []byte) (string, bool) {
	if v == nil || v.kind != '"' {
		return "", false
	}
	raw := body[v.start:v.end]
	if plain(raw) {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// plain reports whether the string literal raw holds no escape and only
// valid UTF-8: its text is its bytes between the quotes.
func plain(raw []byte) bool {
	return bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw)
}

// errSyntax is a body that is not JSON.
var errSyntax = errors.New("not JSON")

// parseJSON parses a JSON document into values with their spans, in time
// and memory linear in its size, refusing nesting deeper than MaxDepth.
func parseJSON(body []byte) (*value, error) {
	p := &jsonParser{b: body}
	p.space()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.b) {
		return nil, fmt.Errorf("%w: data after the value at byte %d", errSyntax, p.i)
	}
	return v, nil
}

type jsonParser struct {
	b    []byte
	i    int
	slab []value // values are cut from it, a few allocations for the tree
}

// alloc returns a new value.
func (p *jsonParser) alloc(kind byte, start, end int) *value {
	if len(p.slab) == cap(p.slab) {
		p.slab = make([]value, 0, max(64, min(4096, len(p.b)/32)))
	}
	p.slab = append(p.slab, value{kind: kind, start: start, end: end})
	return &p.slab[len(p.slab)-1]
}

func (p *jsonParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) fail(what string) error {
	return fmt.Errorf("%w: %s at byte %d", errSyntax, what, p.i)
}

// value parses the value at p.i; depth counts the objects and arrays
// around it.
func (p *jsonParser) value(depth int) (*value, error) {
	if p.i >= len(p.b) {
		return nil, p.fail("unexpected end")
	}
	start := p.i
	if c := p.b[p.i]; (c == '{' || c == '[') && depth >= MaxDepth {
		return nil, fmt.Errorf("%w: nested deeper than %d levels", errSyntax, MaxDepth)
	}
	switch c := p.b[p.i]; {
	case c == '{':
		v := p.alloc('{', start, 0)
		p.i++
		p.space()
		if p.i < len(p.b) && p.b[p.i] == '}' {
			p.i++
			v.end = p.i
			return v, nil
		}
		for {
			p.space()
			k, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			if k.kind != '"' {
				return nil, p.fail("a key that is not a string")
			}
			key, _ := k.str(p.b)
			p.space()
			if p.i >= len(p.b) || p.b[p.i] != ':' {
				return nil, p.fail("no colon")
			}
			p.i++
			p.space()
			kid, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			v.keys = append(v.keys, key)
			v.kids = append(v.kids, kid)
			p.space()
			if p.i < len(p.b) && p.b[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.b) && p.b[p.i] == '}' {
				p.i++
				v.end = p.i
				return v, nil
			}
			return nil, p.fail("no comma or closing brace")
		}
	case c == '[':
		v := p.alloc('[', start, 0)
		p.i++
		p.space()
		if p.i < len(p.b) && p.b[p.i] == ']' {
			p.i++
			v.end = p.i
			return v, nil
		}
		for {
			p.space()
			kid, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			v.kids = append(v.kids, kid)
			p.space()
			if p.i < len(p.b) && p.b[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.b) && p.b[p.i] == ']' {
				p.i++
				v.end = p.i
				return v, nil
			}
			return nil, p.fail("no comma or closing bracket")
		}
	case c == '"':
		p.i++
		for p.i < len(p.b) {
			switch p.b[p.i] {
			case '\\':
				n := escapeLen(p.b[p.i:])
				if n == 0 {
					return nil, p.fail("an invalid escape in a string")
				}
				p.i += n
				continue
			case '"':
				p.i++
				return p.alloc('"', start, p.i), nil
			}
			if p.b[p.i] < 0x20 {
				return nil, p.fail("a control character in a string")
			}
			p.i++
		}
		return nil, p.fail("an unterminated string")
	default:
		for p.i < len(p.b) {
			switch p.b[p.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r', ':':
				goto done
			}
			p.i++
		}
	done:
		lit := p.b[start:p.i]
		if len(lit) == 0 || !json.Valid(lit) {
			return nil, p.fail("an invalid literal")
		}
		return p.alloc('l', start, p.i), nil
	}
}

// escapeLen returns the length of the escape sequence at the start of b
// (\n, \uXXXX and the like), 0 when it is not a valid one.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(b) < 6 {
			return 0
		}
		for _, c := range b[2:6] {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return 0
			}
		}
		return 6
	}
	return 0
}

// rawOffsets maps the decoded bytes of the JSON string literal raw (quotes
// included) to offsets in raw: out[k] is where the k-th decoded byte's
// escape or character starts, out[len(decoded)] the closing quote. A \u
// escape of a character outside the BMP (a surrogate pair) maps each of the
// character's bytes to the pair's start; an invalid escape sequence ends
// the map early (ok false).
func rawOffsets(raw []byte) (out []int, ok bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false
	}
	out = make([]int, 0, len(raw))
	for i := 1; i < len(raw)-1; {
		c := raw[i]
		if c != '\\' {
			r, n := utf8.DecodeRune(raw[i : len(raw)-1])
			w := n
			if r == utf8.RuneError && n == 1 {
				w = 3 // decoded as U+FFFD, as encoding/json does
			}
			for range w {
				out = append(out, i)
			}
			i += n
			continue
		}
		if i+1 >= len(raw)-1 {
			return out, false
		}
		switch raw[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			out = append(out, i)
			i += 2
		case 'u':
			r, n := unicodeEscape(raw[i:])
			if n == 0 {
				return out, false
			}
			for range utf8.RuneLen(r) {
				out = append(out, i)
			}
			i += n
		default:
			return out, false
		}
	}
	return append(out, len(raw)-1), true
}

// unicodeEscape decodes a \uXXXX escape (or a surrogate pair of two) at
// the start of b: the rune and the bytes it took, 0 when invalid. A lone
// surrogate decodes to U+FFFD, as encoding/json does.
func unicodeEscape(b []byte) (rune, int) {
	hex := func(b []byte) (rune, bool) {
		if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
			return 0, false
		}
		var r rune
		for _, c := range b[2:6] {
			switch {
			case c >= '0' && c <= '9':
				r = r<<4 | rune(c-'0')
			case c >= 'a' && c <= 'f':
				r = r<<4 | rune(c-'a'+10)
			case c >= 'A' && c <= 'F':
				r = r<<4 | rune(c-'A'+10)
			default:
				return 0, false
			}
		}
		return r, true
	}
	r, ok := hex(b)
	if !ok {
		return 0, 0
	}
	if r >= 0xD800 && r < 0xDC00 {
		if lo, ok := hex(b[6:]); ok && lo >= 0xDC00 && lo < 0xE000 {
			return (r-0xD800)<<10 | (lo - 0xDC00) + 0x10000, 12
		}
		return utf8.RuneError, 6
	}
	if r >= 0xDC00 && r < 0xE000 {
		return utf8.RuneError, 6
	}
	return r, 6
}
