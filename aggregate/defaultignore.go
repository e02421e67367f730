package aggregate

import (
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ctxaudit/ctx/internal/gitignore"
)

// DefaultIgnoreGroup is one group of [DefaultIgnores]: what the patterns
// are for, and the patterns.
type DefaultIgnoreGroup struct {
	What     string
	Patterns []string
}

// defaultIgnores is the list behind [DefaultIgnores], in gitignore syntax
// relative to the base directory: a pattern without a slash matches at any
// depth, a leading slash anchors it to the base directory, a trailing slash
// matches directories only, and ! keeps what an earlier pattern left out.
// It follows repomix's default list where the two agree (lock files,
// dependency, build and cache directories) and adds secrets, which repomix
// leaves to a content scanner.
var defaultIgnores = []DefaultIgnoreGroup{
	{"version control", []string{".hg/", ".svn/", ".bzr/", "_darcs/", "CVS/"}},
	{"lock files", []string{
		"package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lock", "bun.lockb",
		"deno.lock", "uv.lock", "poetry.lock", "Pipfile.lock", "pdm.lock", "Cargo.lock", "go.sum", "go.work.sum",
		"composer.lock", "Gemfile.lock", "mix.lock", "Podfile.lock", "Package.resolved", "pubspec.lock",
		"flake.lock", "gradle.lockfile", "packages.lock.json", "stack.yaml.lock", "cabal.project.freeze",
	}},
	{"environment files", []string{".env", ".env.*", "!.env.example", "!.env.sample", "!.env.template", ".envrc"}},
	{"private keys and credentials", []string{
		"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk",
		"*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.ppk",
		".netrc", "_netrc", ".npmrc", ".pypirc", ".git-credentials", ".pgpass", ".htpasswd", ".dockercfg",
	}},
	{"dependencies", []string{"node_modules/", "bower_components/", "jspm_packages/", "/vendor/", ".yarn/", ".pnpm-store/", ".bundle/"}},
	{"virtual environments", []string{".venv/", "venv/", ".tox/", ".nox/"}},
	{"build output", []string{"/dist/", "/build/", "/out/", "target/", "*.egg-info/", ".next/", ".nuxt/", ".svelte-kit/", ".turbo/", "*.tsbuildinfo"}},
	{"caches and coverage", []string{
		"__pycache__/", "*.py[cod]", ".cache/", ".pytest_cache/", ".mypy_cache/", ".ruff_cache/", ".ipynb_checkpoints/",
		".gradle/", ".parcel-cache/", ".eslintcache", ".terraform/", "/coverage/", ".nyc_output/", "htmlcov/",
	}},
	{"logs, editors and operating systems", []string{"*.log", ".idea/", ".vscode/", "*.swp", ".DS_Store", "Thumbs.db"}},
}

// DefaultIgnores returns the default ignore list, by group: what globs and
// directory walks leave out unless Options.NoDefaultIgnores is set. Files
// left out by it are listed in [Result.Ignored], never dropped silently;
// a file named explicitly is always read. The output directory and .git
// are never entered, with or without this list.
func DefaultIgnores() []DefaultIgnoreGroup {
	out := make([]DefaultIgnoreGroup, len(defaultIgnores))
	for i, g := range defaultIgnores {
		out[i] = DefaultIgnoreGroup{What: g.What, Patterns: append([]string(nil), g.Patterns...)}
	}
	return out
}

// CheckIgnorePattern reports whether p is a usable ignore pattern: not
// blank, and with valid wildcards in every part.
func CheckIgnorePattern(p string) error {
	if strings.TrimSpace(p) == "" {
		return fmt.Errorf("must not be empty")
	}
	body := strings.TrimPrefix(strings.TrimSuffix(strings.TrimPrefix(p, "!"), "/"), "/")
	for _, part := range strings.Split(body, "/") {
		if _, err := path.Match(part, ""); err != nil {
			return fmt.Errorf("invalid pattern %q: %v", p, err)
		}
	}
	return nil
}

// IgnoredPath is a file or directory that globs and walks left out because
// of the default ignore list.
type IgnoredPath struct {
	// Path is relative to the base directory, with forward slashes.
	Path string `json:"path"`
	// Dir is true for a directory, left out with everything below it.
	Dir bool `json:"dir,omitempty"`
	// Pattern is the default pattern that matched.
	Pattern string `json:"pattern"`

	abs string
}

// Shown is the path as people read it: a directory ends with a slash.
func (p IgnoredPath) Shown() string {
	if p.Dir {
		return p.Path + "/"
	}
	return p.Path
}

// rule is one pattern of the ignore rules.
type rule struct {
	text      string
	isDefault bool // from the default list (listed when it decides)
}

// ignoreRules are the default and the caller's ignore patterns, relative to
// a base directory, matched as git matches a .gitignore file at the base
// (internal/gitignore): the last pattern that matches decides, so a
// caller's "!go.sum" keeps what the defaults leave out.
type ignoreRules struct {
	patterns []*gitignore.Pattern
	rules    map[*gitignore.Pattern]*rule
}

func newIgnoreRules(defaults bool, patterns []string) *ignoreRules {
	r := &ignoreRules{rules: map[*gitignore.Pattern]*rule{}}
	add := func(text string, isDefault bool) {
		if p, ok := gitignore.Parse(text, ""); ok {
			r.patterns = append(r.patterns, p)
			r.rules[p] = &rule{text: text, isDefault: isDefault}
		}
	}
	if defaults {
		for _, g := range defaultIgnores {
			for _, p := range g.Patterns {
				add(p, true)
			}
		}
	}
	for _, p := range patterns {
		if CheckIgnorePattern(p) != nil {
			continue // the caller validates; a comment is not a pattern
		}
		add(p, false)
	}
	return r
}

// match returns whether parts (a path relative to the base directory,
// split at slashes) is itself ignored, and the rule that decided. Its
// parent directories are not looked at: a walk does not enter an ignored
// directory, and a walk of a directory named explicitly applies the rules
// below it.
func (r *ignoreRules) match(parts []string, isDir bool) (bool, *rule) {
	if r == nil {
		return false, nil
	}
	p := gitignore.Last(r.patterns, strings.Join(parts, "/"), isDir)
	if p == nil {
		return false, nil
	}
	return !p.Negated(), r.rules[p]
}

// ignoredLog collects what the default ignore list left out, once per
// path.
type ignoredLog struct {
	seen  map[string]bool
	paths []IgnoredPath
}

func (l *ignoredLog) add(p IgnoredPath) {
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	if l.seen[p.abs] {
		return
	}
	l.seen[p.abs] = true
	l.paths = append(l.paths, p)
}

// list returns the paths sorted, without those that another entry
// resolved to (a file named explicitly is read) and, with keep, only those
// keep accepts.
func (l *ignoredLog) list(resolved map[string]int, keep func(IgnoredPath) bool) []IgnoredPath {
	var out []IgnoredPath
	for _, p := range l.paths {
		if _, ok := resolved[p.abs]; ok {
			continue
		}
		if keep != nil && !keep(p) {
			continue
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// splitRel splits abs relative to base into slash parts; ok is false
// when abs is base itself.
func splitRel(base, abs string) ([]string, bool) {
	rel, err := filepath.Rel(base, abs)
	if err != nil || rel == "." {
		return nil, false
	}
	return strings.Split(filepath.ToSlash(rel), "/"), true
}
