// Package jsonc reads JSON with comments, as agents' settings files are
// written (Gemini CLI's settings.json allows // and /* */ comments).
package jsonc

// Strip returns b with every comment outside a string replaced by spaces
// (newlines kept), so a JSON decoder reads it and its errors keep their
// offsets and lines. An unterminated block comment runs to the end.
// Strip does not modify b.
func Strip(b []byte) []byte {
	out := make([]byte, len(b))
	copy(out, b)
	blank := func(i, j int) {
		for ; i < j; i++ {
			if out[i] != '\n' && out[i] != '\r' {
				out[i] = ' '
			}
		}
	}
	for i := 0; i < len(b); {
		switch {
		case b[i] == '"':
			i++
			for i < len(b) && b[i] != '"' {
				if b[i] == '\\' {
					i++
				}
				i++
			}
			i++
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			j := i + 2
			for j < len(b) && b[j] != '\n' {
				j++
			}
			blank(i, j)
			i = j
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			j := i + 2
			for j < len(b) && !(b[j] == '*' && j+1 < len(b) && b[j+1] == '/') {
				j++
			}
			if j < len(b) {
				j += 2
			}
			blank(i, j)
			i = j
		default:
			i++
		}
	}
	return out
}
