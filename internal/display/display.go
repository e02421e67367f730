// Package display shows values to people: host paths with the home
// directory as ~, and numbers with thousands separators.
package display

import (
	"os"

	"path/filepath"
	"strconv"
	"strings"

	"github.com/ctxaudit/ctx/internal/mdtext"
)

// Path shows home as ~ and leaves everything else as it is. Paths under a
// symlinked home, which ctx records resolved, are shown with ~ too.
// Control characters are escaped (mdtext.Escape): a name never adds a line
// or an escape sequence to what people read, and neither do [Rel] and
// [ID].
func Path(p, home string) string {
	return mdtext.Escape(path(p, home))
}

func path(p, home string) string {
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

// RelativeToWD shows p relative to the working directory when it lies
// below it (so messages name ./ctx.toml "ctx.toml"), else as it is. The
// result is still a path to open: shown to people, it goes through [Path].
func RelativeToWD(p string) string {
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	if r, err := filepath.Rel(wd, p); err == nil && r != ".." && !strings.HasPrefix(r, "../") {
		return r
	}
	return p
}

// Rel shows p for people in a project: relative to project when it lies
// inside it ("." for the project itself); a path at most two directories
// above it relative too ("../AGENTS.md" of a repository root) when that is
// shorter than the other form; else with home as ~ ([Path]).
func Rel(p, project, home string) string {
	other := Path(p, home)
	if project != "" && filepath.IsAbs(p) {
		if r, err := filepath.Rel(project, p); err == nil && !filepath.IsAbs(r) {
			up := 0
			for strings.HasPrefix(r[up*3:], "../") {
				up++
			}
			switch {
			case r == "..":
			case up == 0:
				return mdtext.Escape(filepath.ToSlash(r))
			case up <= 2 && len(r) <= len(other):
				return mdtext.Escape(filepath.ToSlash(r))
			}
		}
	}
	return other
}

// ID shows a source id for people: the path of a "native:" id as [Rel]
// shows it, any other id as it is.
func ID(id, project, home string) string {
	if p, ok := strings.CutPrefix(id, "native:"); ok && filepath.IsAbs(p) {
		return "native:" + Rel(p, project, home)
	}
	return mdtext.Escape(id)
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

// Conditions is "when its condition applies" for one file, "when their
// conditions apply" for more: what the counts of conditional files say.
func Conditions(n int) string {
	if n == 1 {
		return "when its condition applies"
	}
	return "when their conditions apply"
}

// MoreCredentials counts the credentials a list of warnings left out:
// "1 more credential is", "12 more credentials are".
func MoreCredentials(n int) string {
	if n == 1 {
		return "1 more credential is"
	}
	return Int(n) + " more credentials are"
}

// Count writes n with the noun that fits it: "1 file", "1,234 files". one
// and many are the singular and plural, for nouns whose plural is not
// regular (see [Plural]).
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Int(n) + " " + many
}

// Plural is [Count] with the regular English plural of noun: "s" added,
// or "ies" for a consonant and "y" ("1 entry", "2 entries", "3 keys").
func Plural(n int, noun string) string {
	return Count(n, noun, pluralOf(noun))
}

func pluralOf(noun string) string {
	if len(noun) >= 2 && strings.HasSuffix(noun, "y") && !strings.ContainsRune("aeiou", rune(noun[len(noun)-2])) {
		return noun[:len(noun)-1] + "ies"
	}
	return noun + "s"
}
