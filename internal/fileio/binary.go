package fileio

import (
	"bytes"
	"unicode/utf8"
)

// binarySniff is how many leading bytes [IsBinary] searches for a NUL byte.
const binarySniff = 8000

// IsBinary reports whether src looks binary: a NUL byte in the first 8000
// bytes, or invalid UTF-8 anywhere. It is the one test of ctx for a file
// that is not shown as text (aggregate's views, the slices that
// aggregate/slice pins).
func IsBinary(src []byte) bool {
	if bytes.IndexByte(src[:min(len(src), binarySniff)], 0) >= 0 {
		return true
	}
	return !utf8.Valid(src)
}
