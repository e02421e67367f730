package aggregate

import (
	"path/filepath"
	"strings"

	"github.com/ctxaudit/ctx/internal/fileio"
)

// IgnoreOutput leaves the file at path (relative to the working
// directory, as a command's -o names it) out of globs and walks when it
// lies below BaseDir, as a literal pattern of IgnorePatterns; a file named
// explicitly is still read. A command that writes its output into the
// project (ctx report's page) calls it, so that the next run does not
// read the output back and the same project gives the same output twice.
func (o *Options) IgnoreOutput(path string) {
	if path == "" {
		return
	}
	rel, err := filepath.Rel(fileio.RealPath(o.BaseDir), fileio.RealPath(path))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return
	}
	o.IgnorePatterns = append(o.IgnorePatterns, "/"+literalPattern(filepath.ToSlash(rel)))
}

// literalPattern is a gitignore pattern body that matches the path p and
// nothing else: the characters that patterns give a meaning to are
// escaped, and so are trailing spaces, which git drops.
func literalPattern(p string) string {
	var b strings.Builder
	for i, r := range p {
		if strings.ContainsRune(`\*?[`, r) || (r == ' ' && strings.TrimRight(p[i:], " ") == "") {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
