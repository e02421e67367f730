// Package display shows values to people: host paths with the home
// directory as ~, and numbers with thousands separators.
package display

import (
	"path/filepath"
	"strconv"
	"strings"
)

// Path shows home as ~ and leaves everything else as it is. Paths under a
// symlinked home, which ctx records resolved, are shown with ~ too.
func Path(p, home string) string {
	if home == "" || home == "/" {
		return p
	}
	homes := []string{strings.TrimSuffix(home, "/")}
	if r, err := filepath.EvalSymlinks(home); err == nil && r != homes[0] {
		homes = append(homes, r)
	}
	for _, h := range homes {
		if p == h {
			return "~"
		}
		if strings.HasPrefix(p, h+"/") {
			return "~" + p[len(h):]
		}
	}
	return p
}

// Rel shows p relative to dir when it lies in dir ("." for dir itself),
// else as [Path] does: home as ~, anything else absolute.
func Rel(p, dir, home string) string {
	if dir != "" && filepath.IsAbs(p) {
		d := strings.TrimSuffix(dir, "/")
		if p == d {
			return "."
		}
		if d != "" && strings.HasPrefix(p, d+"/") {
			return p[len(d)+1:]
		}
	}
	return Path(p, home)
}

// Int writes n in decimal with a comma between groups of three digits:
// 8639 is "8,639". It is for text people read (tables, messages), never
// for JSON.
func Int(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
