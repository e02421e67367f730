package aggregate

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/ctxaudit/ctx/internal/atomicfile"
	"github.com/ctxaudit/ctx/measure"
)

// DefaultOutputDir is where numbered outputs go when no output directory is
// configured, relative to the project directory.
const DefaultOutputDir = ".ctx/out"

// DefaultKeep is how many numbered outputs ctx keeps in the output
// directory when ctx.toml says nothing ([output] keep): the newest ten.
const DefaultKeep = 10

// OutputIgnore is the .gitignore that ctx writes in an output directory it
// made, so that git, and the packers that follow .gitignore, leave the
// numbered outputs (and the .gitignore itself) alone.
const OutputIgnore = "# Written by ctx: the numbered outputs of ctx aggregate are not sources.\n*\n"

// lazyNumbered is the numbered output file of a run, made with the first
// byte written: the output directory (and its .gitignore) and a temporary
// file in it, which claim links to the next free number.
type lazyNumbered struct {
	ctx       context.Context
	dir       string
	namespace string
	w         *atomicfile.Writer
	created   bool // the output directory did not exist
	err       error
}

func (l *lazyNumbered) Write(p []byte) (int, error) {
	if l.w == nil && l.err == nil {
		l.w, l.created, l.err = createNumbered(l.ctx, l.dir, l.namespace)
	}
	if l.err != nil {
		return 0, l.err
	}
	return l.w.Write(p)
}

// close removes the temporary file unless it was claimed.
func (l *lazyNumbered) close() {
	if l.w != nil {
		l.w.Close()
	}
}

// claim gives the written file its number, makes the output directory
// ignore itself when ctx made it, and removes the numbered outputs past
// the newest keep (no limit: none are removed).
func (l *lazyNumbered) claim(keep measure.Limit) (string, error) {
	if l.w == nil {
		if _, err := l.Write(nil); err != nil {
			return "", err
		}
	}
	p, err := claimNumbered(l.ctx, l.w, l.dir, l.namespace)
	if err != nil {
		return "", err
	}
	// the output is in place: the small .gitignore beside it is written
	// even when ctx is done now
	if err := ignoreOutputDir(context.WithoutCancel(l.ctx), l.dir, l.namespace, l.created, p); err != nil {
		return "", err
	}
	pruneNumbered(l.dir, l.namespace, keep, p)
	return p, nil
}

// ignoreOutputDir writes [OutputIgnore] as dir/.gitignore when dir has
// none and ctx made it: it did not exist before the run (created), or it
// holds nothing but ctx's numbered outputs of namespace (earlier ones
// besides written, the one just written) and temporary files: an output
// directory made by a ctx that wrote no .gitignore. A directory that holds
// anything else (output_dir = ".", say), or nothing before the run, is the
// user's, and left as it is; so is a .gitignore that is there (a user who
// commits the outputs writes one of their own).
func ignoreOutputDir(ctx context.Context, dir, namespace string, created bool, written string) error {
	p := filepath.Join(dir, ".gitignore")
	if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
		return nil // there is one (or it cannot be told): never replaced
	}
	if !created && !onlyOutputs(dir, namespace, written) {
		return nil
	}
	if err := atomicfile.WriteFile(ctx, p, []byte(OutputIgnore), 0o644); err != nil {
		return writeFailed(ctx, err)
	}
	return nil
}

// onlyOutputs reports whether dir holds a numbered output of namespace
// besides written, and nothing but such outputs and ctx's temporary files.
func onlyOutputs(dir, namespace, written string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	re := outputPattern(namespace)
	tmp := "." + namespace + ".md.tmp-"
	outputs := 0
	for _, e := range ents {
		switch name := e.Name(); {
		case e.Type().IsRegular() && re.MatchString(name):
			if filepath.Join(dir, name) != written {
				outputs++
			}
		case e.Type().IsRegular() && (strings.HasPrefix(name, tmp) || strings.HasPrefix(name, ".gitignore.tmp-")):
		default:
			return false
		}
	}
	return outputs > 0
}

// numbered lists the numbered outputs of namespace directly in dir (regular
// files named {namespace}_{N}.md), by number.
func numbered(dir, namespace string) []numberedOutput {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(namespace) + `_(\d+)\.md$`)
	var out []numberedOutput
	for _, e := range ents {
		m := re.FindStringSubmatch(e.Name())
		if m == nil || !e.Type().IsRegular() {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil {
			continue
		}
		out = append(out, numberedOutput{n: n, path: filepath.Join(dir, e.Name())})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].n != out[j].n {
			return out[i].n < out[j].n
		}
		return out[i].path < out[j].path
	})
	return out
}

type numberedOutput struct {
	n    int
	path string
}

// pruneNumbered removes the numbered outputs of namespace in dir but the
// keep newest (by number) and the one just written, written; no limit
// removes none. Only regular files named as ctx names its outputs are
// removed; a file that cannot be removed stays (the next run tries again).
func pruneNumbered(dir, namespace string, keep measure.Limit, written string) {
	n, ok := keep.Value()
	if !ok {
		return
	}
	outs := numbered(dir, namespace)
	if n >= int64(len(outs)) {
		return
	}
	for _, o := range outs[:len(outs)-int(n)] {
		if o.path != written {
			_ = os.Remove(o.path)
		}
	}
}
