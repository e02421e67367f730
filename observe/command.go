package observe

import (
	"fmt"
	"strings"

	"github.com/ctxaudit/ctx/measure"
)

// The record keeps the command that was run by its shape, not its text
// (a prompt, a setting in JSON or TOML may hold anything, a token too):
// the program and its flags as they are, and each other argument when it
// is a short word (at most shortWord bytes of letters, digits and
// "._:/@+=-": a subcommand, a model, "hi") that does not follow a flag of
// free text (-p, --prompt, -c, --settings and the like). Any other
// argument, and the value of such a flag, is "<N bytes, blake3 PREFIX>":
// its size and the first 12 hex digits of its BLAKE3, so that two records
// of one command compare equal.
const shortWord = 24

// freeText are the flags of the agents whose value is free text.
var freeText = map[string]bool{
	"-p": true, "--print": true, "--prompt": true, "-i": true, "--prompt-interactive": true,
	"--append-system-prompt": true, "--system-prompt": true, "--settings": true, "--mcp-config": true, "--agents": true,
	"-c": true, "--config": true, "--instructions": true,
}

// recordedCommand returns the command as the record keeps it.
func recordedCommand(args []string) []string {
	if len(args) == 0 {
		return nil
	}
	out := []string{args[0]}
	afterFree := false
	for _, a := range args[1:] {
		switch {
		case a == "--":
			out = append(out, a)
			afterFree = false
		case strings.HasPrefix(a, "-") && len(a) > 1 && !afterFree:
			name, value, ok := strings.Cut(a, "=")
			if !ok {
				out = append(out, a)
				afterFree = freeText[a]
				continue
			}
			if freeText[name] || !isShortWord(value) {
				value = shape(value)
			}
			out = append(out, name+"="+value)
		case afterFree || !isShortWord(a):
			out = append(out, shape(a))
			afterFree = false
		default:
			out = append(out, a)
		}
	}
	return out
}

// shape is "<N bytes, blake3 PREFIX>" of s.
func shape(s string) string {
	return fmt.Sprintf("<%d bytes, blake3 %s>", len(s), measure.Hash([]byte(s))[:12])
}

// isShortWord reports whether s is a word the record keeps as it is.
func isShortWord(s string) bool {
	if s == "" || len(s) > shortWord {
		return s == ""
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._:/@+=-", r)) {
			return false
		}
	}
	return true
}
