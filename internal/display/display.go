// Package display shows host paths to people: the home directory as ~.
package display

import (
	"os"
	"path/filepath"
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

// RelativeToWD shows p relative to the working directory when it lies
// below it (so messages name ./ctx.toml "ctx.toml"), else as it is.
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
