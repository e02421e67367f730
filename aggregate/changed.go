package aggregate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Changes are the files that git reports as changed in a working tree, for
// Options.Changed: with a revision, the files that differ between it and
// the working tree (staged or not, as `git diff --name-only REF` lists
// them); without one, the uncommitted changes (against HEAD, or every
// tracked file before the first commit). Both add the untracked files that
// the ignore rules of git do not exclude. Deleted files are not listed:
// there is nothing left to send.
type Changes struct {
	// Ref is the revision as given; "" for the uncommitted changes.
	Ref string `json:"ref,omitempty"`
	// Root is the top level of the working tree.
	Root string `json:"-"`
	// Paths are the changed files relative to Root, with forward slashes,
	// sorted.
	Paths []string `json:"paths"`
}

// NotRepositoryError is returned by [ChangedFiles] for a directory outside
// any git working tree.
type NotRepositoryError struct{ Dir string }

func (e *NotRepositoryError) Error() string {
	return fmt.Sprintf("%s is not in a git working tree (--changed lists the files git reports as changed)", e.Dir)
}

// ErrNoGit is returned by [ChangedFiles] when the git command is not
// installed.
var ErrNoGit = errors.New("the git command was not found: --changed needs git")

// ChangedFiles asks git which files changed in the working tree holding
// dir (see [Changes]); ref "" means the uncommitted changes. It runs the
// git command (git diff, git ls-files), so that the index, attributes,
// sparse checkouts, worktrees and the user's ignore rules count exactly as
// in git itself.
func ChangedFiles(ctx context.Context, dir, ref string) (*Changes, error) {
	if strings.HasPrefix(ref, "-") || strings.ContainsAny(ref, "\x00\n") {
		return nil, fmt.Errorf("invalid git revision %q", ref)
	}
	top, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		var ge *gitError
		if errors.As(err, &ge) && strings.Contains(ge.stderr, "not a git repository") {
			return nil, &NotRepositoryError{Dir: dir}
		}
		return nil, err
	}
	root := strings.TrimRight(string(top), "\n")
	if root == "" {
		// a bare repository, or inside .git: no working tree
		return nil, &NotRepositoryError{Dir: dir}
	}
	ch := &Changes{Ref: ref, Root: filepath.FromSlash(root)}
	var lists [][]byte
	diff := []string{"-c", "core.quotePath=false", "diff", "--name-only", "-z", "--no-renames", "--diff-filter=d", "--no-ext-diff"}
	switch {
	case ref != "":
		commit, err := git(ctx, ch.Root, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
		if err != nil {
			return nil, fmt.Errorf("unknown git revision %q", ref)
		}
		out, err := git(ctx, ch.Root, append(diff, strings.TrimSpace(string(commit)), "--")...)
		if err != nil {
			return nil, err
		}
		lists = append(lists, out)
	default:
		if _, err := git(ctx, ch.Root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err != nil {
			// no commit yet: every tracked file is new
			out, err := git(ctx, ch.Root, "ls-files", "-z")
			if err != nil {
				return nil, err
			}
			lists = append(lists, out)
			break
		}
		out, err := git(ctx, ch.Root, append(diff, "HEAD", "--")...)
		if err != nil {
			return nil, err
		}
		lists = append(lists, out)
	}
	untracked, err := git(ctx, ch.Root, "ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	lists = append(lists, untracked)
	seen := map[string]bool{}
	for _, l := range lists {
		for _, p := range bytes.Split(l, []byte{0}) {
			if s := string(p); s != "" && !seen[s] {
				seen[s] = true
				ch.Paths = append(ch.Paths, s)
			}
		}
	}
	sort.Strings(ch.Paths)
	return ch, nil
}

// set returns the changed files as host paths with the links of their
// directories resolved, as [realPath] gives them.
func (c *Changes) set() map[string]bool {
	root := c.Root
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	m := make(map[string]bool, len(c.Paths))
	for _, p := range c.Paths {
		m[realPath(filepath.Join(root, filepath.FromSlash(p)))] = true
	}
	return m
}

// gitError is a git command that failed.
type gitError struct {
	args   []string
	stderr string
	err    error
}

func (e *gitError) Error() string {
	msg := strings.TrimSpace(e.stderr)
	if msg == "" {
		msg = e.err.Error()
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.args, " "), msg)
}

func (e *gitError) Unwrap() error { return e.err }

// git runs the git command in dir and returns its standard output.
func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LC_ALL=C", "LANGUAGE=") // messages read below
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, ErrNoGit
		}
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, &gitError{args: args, stderr: stderr.String(), err: err}
	}
	return stdout.Bytes(), nil
}

// IsRevision reports whether git knows name as a commit in the working
// tree holding dir (so that `--changed main` can be told from a path).
func IsRevision(ctx context.Context, dir, name string) bool {
	if name == "" || strings.HasPrefix(name, "-") || strings.ContainsAny(name, "\x00\n") {
		return false
	}
	_, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", "--end-of-options", name+"^{commit}")
	return err == nil
}
