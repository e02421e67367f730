package gitleaks

import (
	"encoding/base64"
	"strings"
)

// decodable reports whether gitleaks' decoder can find an encoded segment
// in text: false only when codec.Decoder.Decode(text, nil) finds none, so
// that a detector that does not decode (MaxDecodeDepth 0) finds in text
// exactly what one that decodes finds. Most windows of code have no
// segment, and the decoder's regular expression (percent, unicode, hex and
// base64 in one pattern, a capture for each) took half the time of a
// scan to say so; this pass is linear.
//
// It follows the decoder's pattern, leftmost first, line by line (no match
// but a unicode one crosses a line end, and any unicode escape makes it
// true): in a line, a percent match runs from its first escape (%4A) to
// the end of its last one, and is a segment when every escape decodes to
// printable ASCII; before and after it, each run of [A-Za-z0-9_/+-] is
// matched from its start, as hex when 32 hex digits or more start it (then
// again after them), else as base64 when 16 characters or more are left
// (with up to two "=" after it), and is a segment when it decodes as
// decodeHex and decodeBase64 of gitleaks decode. TestDecodable and
// FuzzDecodable hold it to the decoder.
func decodable(text string) bool {
	for text != "" {
		line, rest, _ := strings.Cut(text, "\n")
		if decodableLine(line) {
			return true
		}
		text = rest
	}
	return false
}

// decodableLine is decodable of a line without its line end.
func decodableLine(line string) bool {
	first, last, printable := -1, -1, true
	for i := 0; i+2 < len(line); i++ {
		if line[i] == '%' && isHexDigit(line[i+1]) && isHexDigit(line[i+2]) {
			// escapes never overlap: a hex digit is not "%"
			printable = printable && printableByte(hexByte(line[i+1], line[i+2]))
			if first < 0 {
				first = i
			}
			last = i + 3
			i += 2
		}
	}
	switch {
	case first < 0:
		return decodableRuns(line)
	case printable:
		return true
	}
	// the percent match decodes to nothing, and the decoder goes on after
	// it
	return decodableRuns(line[:first]) || decodableRuns(line[last:])
}

// decodableRuns is decodableLine of text without a percent escape.
func decodableRuns(text string) bool {
	start := -1
	for i := 0; i <= len(text); i++ {
		if i < len(text) {
			c := text[i]
			switch {
			case c == '+' && i > 0 && (text[i-1] == 'U' || text[i-1] == 'u') && hex4(text[i+1:]):
				return true // a code point, U+0041
			case c == '\\' && i+1 < len(text) && (text[i+1] == 'u' || text[i+1] == 'U') && hex4(text[i+2:]):
				return true // an escape, \u0041
			}
			if base64Run(c) {
				if start < 0 {
					start = i
				}
				continue
			}
		}
		if start >= 0 && decodableRun(text, start, i) {
			return true
		}
		start = -1
	}
	return false
}

// decodableRun reports whether the decoder's matches in the run
// text[start:end] of base64 characters hold a segment.
func decodableRun(text string, start, end int) bool {
	for at := start; at < end; {
		h := at
		for h < end && isHexDigit(text[h]) {
			h++
		}
		if h-at >= 32 {
			if decodesHex(text[at:h]) {
				return true
			}
			at = h
			continue
		}
		return base64Segment(text, at, end)
	}
	return false
}

// decodesHex is gitleaks' decodeHex (detect/codec) returning whether the
// value decodes: an even number of digits, one of them 0-9, each pair a
// printable character.
func decodesHex(v string) bool {
	if len(v)%2 != 0 || !strings.ContainsAny(v, "0123456789") {
		return false
	}
	for i := 0; i < len(v); i += 2 {
		if !printableByte(hexByte(v[i], v[i+1])) {
			return false
		}
	}
	return true
}

func hexByte(hi, lo byte) byte { return hexValue(hi)<<4 | hexValue(lo) }

func hexValue(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// base64Segment reports whether the run text[start:end] of base64
// characters, with up to two "=" after it, is a segment that the decoder
// keeps.
func base64Segment(text string, start, end int) bool {
	if end-start < 16 {
		return false
	}
	for k := 0; k < 2 && end < len(text) && text[end] == '='; k++ {
		end++
	}
	return decodesBase64(text[start:end])
}

// decodesBase64 is gitleaks' decodeBase64 (detect/codec) returning
// whether the value decodes: it must hold one of the characters base64
// of data usually holds (a digit, + / - or _), and decode, as standard
// base64 or as unpadded base64url, to printable ASCII.
func decodesBase64(v string) bool {
	likely := false
	for i := 0; i < len(v) && !likely; i++ {
		c := v[i]
		likely = c >= '0' && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_'
	}
	if !likely {
		return false
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(v); err == nil && printable(b) {
			return true
		}
	}
	return false
}

// printable is gitleaks' isPrintableASCII: every byte from tab to "~".
func printable(b []byte) bool {
	for _, c := range b {
		if !printableByte(c) {
			return false
		}
	}
	return true
}

func printableByte(c byte) bool { return c > '\x08' && c < '\x7f' }

func base64Run(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '/' || c == '+' || c == '-'
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// hex4 reports whether s starts with four hex digits.
func hex4(s string) bool {
	if len(s) < 4 {
		return false
	}
	for i := range 4 {
		if !isHexDigit(s[i]) {
			return false
		}
	}
	return true
}
