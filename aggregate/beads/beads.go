// Package beads reads the Beads store of a project (the JSONL file the bd
// tool keeps, one issue per line: execution_mode = "beads" in ctx.toml)
// and writes its section of a pack or manifest, "## Beads Mode: Progress
// Track" (Manual Slop's build_beads_section). It imports nothing of the
// pipeline: aggregate runs it for Options.Beads, manifest for its Beads
// record, provenance reads the store again through [StoreFile].
package beads

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/ctxaudit/ctx/internal/decodelimit"
	"github.com/ctxaudit/ctx/internal/fileio"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/secrets"
)

// Heading is the heading of the Beads section (Manual Slop's
// build_beads_section).
const Heading = "## Beads Mode: Progress Track"

// StoreNames are the files a Beads store directory is looked up by,
// in order: bd keeps issues.jsonl, older versions beads.jsonl.
var StoreNames = []string{"issues.jsonl", "beads.jsonl"}

// MaxBytes bounds the size of a Beads store.
const MaxBytes = 64 << 20

// Options locate the Beads store of a project: the JSONL file that
// the bd tool keeps, one issue per line (execution_mode = "beads" in
// ctx.toml).
type Options struct {
	// Path is the store: a JSONL file, or a directory holding one of
	// StoreNames (the first that exists).
	Path string
	// Name names Path in errors and in Store.File (ctx.toml's beads_path
	// as written, or ".beads"); "" is Path.
	Name string
	// MustExist makes a missing store an error (a beads_path that points
	// nowhere); otherwise a missing store gives no section, as the
	// original's does for a project that is not a Beads project.
	MustExist bool
	// Where prefixes the error of a missing store ("ctx.toml:3: beads_path").
	Where string
	// Allow, when set, must accept the store's real path (every link
	// resolved, as opened): a store it refuses is an error and is not
	// read. aggregate.Run sets it to the project's boundary.
	Allow func(real string) bool
	// Redact, when set, replaces the credentials in each bead's title,
	// description and id (Store.Redacted records them).
	Redact secrets.Scanner
}

// Measured is the size and BLAKE3 of a store's bytes, as
// aggregate.Measured is a file's.
type Measured struct {
	measure.Sizes
	Hash string `json:"hash"`
}

// Bead is one issue of a Beads store.
type Bead struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	// Status is bd's status: open, in_progress, blocked, closed, ...
	Status string `json:"status"`
}

// Completed reports whether the bead is done (status closed).
func (b Bead) Completed() bool { return b.Status == "closed" }

// Store is what was read from a Beads store.
type Store struct {
	// File names the store read (or the place it was looked for, when
	// there is none), from Options.Name, with forward slashes.
	File string `json:"file"`
	// Found is false when there is no store.
	Found bool `json:"found"`
	// Source measures the store's bytes; zero when there is none.
	Source Measured `json:"source"`
	// Beads are the issues in file order, without deleted ones (status
	// tombstone).
	Beads []Bead `json:"beads"`
	// Redacted lists the credentials Options.Redact replaced, per
	// field of a bead; nil when none were.
	Redacted []Redaction `json:"redacted,omitempty"`
}

// Redaction records the credentials replaced in one field of a bead.
type Redaction struct {
	// Bead is the bead's id (as redacted) and Field "id", "title" or
	// "description".
	Bead, Field string
	Secrets     []secrets.Finding `json:"secrets"`
	// HashBefore and HashAfter are the BLAKE3 of the field before and
	// after redaction.
	HashBefore string `json:"hash_before"`
	HashAfter  string `json:"hash_after"`
}

// Counts returns the number of completed and active beads.
func (b *Store) Counts() (completed, active int) {
	for _, x := range b.Beads {
		if x.Completed() {
			completed++
		} else {
			active++
		}
	}
	return completed, active
}

// Section is the Beads section of b (see the function [Section]).
func (b *Store) Section() string {
	if b == nil {
		return ""
	}
	return Section(b.Beads)
}

// Error is a malformed line of a Beads store.
type Error struct {
	File  string
	Line  int
	Field string // "" for the line as a whole
	Msg   string
}

func (e *Error) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Field, e.Msg)
}

// StoreFile returns the store file of p: p itself, or, when p is a
// directory, the first of StoreNames in it that is not a directory
// ("" when there is none).
func StoreFile(p string) string {
	st, err := os.Stat(p)
	if err != nil || !st.IsDir() {
		return p
	}
	for _, n := range StoreNames {
		if st, err := os.Stat(filepath.Join(p, n)); err == nil && !st.IsDir() {
			return filepath.Join(p, n)
		}
	}
	return ""
}

// Read reads the store of o through ctx's bounded reader. A missing
// store is no error unless o.MustExist (it has Found false). Every
// non-blank line must be a JSON object, nested at most
// decodelimit.MaxDepth levels, without a key twice, with a non-empty
// string "id";
// "title", "description" and "status" are strings when present (a missing
// status is open); other keys are ignored. A line whose "_type" is not
// "issue" (bd's export of other records) and a deleted issue (status
// tombstone) are skipped; an id seen twice is an error.
func Read(o Options) (*Store, error) {
	name := o.Name
	if name == "" {
		name = o.Path
	}
	name = filepath.ToSlash(name)
	res := &Store{File: name, Beads: []Bead{}}
	file := StoreFile(o.Path)
	if file != o.Path && file != "" {
		res.File = path.Join(name, filepath.Base(file))
	}
	missing := func() (*Store, error) {
		if o.MustExist {
			msg := fmt.Sprintf("%s: no Beads store (%s)", name, strings.Join(StoreNames, " or "))
			if o.Where != "" {
				msg = o.Where + ": " + msg
			}
			return nil, errors.New(msg)
		}
		return res, nil
	}
	if file == "" {
		return missing()
	}
	var data []byte
	var err error
	if o.Allow != nil {
		data, _, _, err = fileio.ReadAllowed(file, MaxBytes, o.Allow)
	} else {
		data, _, err = fileio.Read(file, MaxBytes)
	}
	var oe *fileio.OutsideError
	if errors.As(err, &oe) {
		msg := fmt.Sprintf("%s: outside the project (%s): the Beads store is read only from the project (--allow-outside, or allow_outside in the user configuration, allows it)", name, oe.Real)
		if o.Where != "" {
			msg = o.Where + ": " + msg
		}
		return nil, errors.New(msg)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if o.MustExist {
			msg := fmt.Sprintf("%s: %s", name, fileio.Describe(err))
			if o.Where != "" {
				msg = o.Where + ": " + msg
			}
			return nil, errors.New(msg)
		}
		return res, nil
	case err != nil:
		return nil, fmt.Errorf("%s: %s", res.File, fileio.Describe(err))
	}
	res.Found = true
	res.Source = Measured{Sizes: measure.Sizes{Bytes: len(data)}, Hash: measure.Hash(data)}
	seen := map[string]int{}
	for i, line := range bytes.Split(data, []byte("\n")) {
		n := i + 1
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		// nesting and repeated keys first: encoding/json keeps the last
		// of two keys, where another reader may keep the first
		if err := decodelimit.JSON(line, decodelimit.Options{UniqueKeys: true}); err != nil {
			return nil, &Error{File: res.File, Line: n, Msg: err.Error()}
		}
		b, skip, err := decodeBead(line)
		if err != nil {
			err.File, err.Line = res.File, n
			return nil, err
		}
		if skip {
			continue
		}
		if first, dup := seen[b.ID]; dup {
			return nil, &Error{File: res.File, Line: n, Field: "id", Msg: fmt.Sprintf("%q is also on line %d", b.ID, first)}
		}
		seen[b.ID] = n
		res.Beads = append(res.Beads, b)
	}
	if o.Redact != nil {
		if err := res.redact(o.Redact); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// redact replaces the credentials in the fields of every bead.
func (b *Store) redact(sc secrets.Scanner) error {
	for i := range b.Beads {
		x := &b.Beads[i]
		for _, f := range []struct {
			name string
			v    *string
		}{{"title", &x.Title}, {"description", &x.Description}, {"id", &x.ID}} {
			if *f.v == "" {
				continue
			}
			red, found, err := sc.Redact(context.Background(), ScanName, *f.v)
			if err != nil {
				return err
			}
			if len(found) == 0 {
				continue
			}
			b.Redacted = append(b.Redacted, Redaction{Field: f.name, Secrets: found,
				HashBefore: measure.Hash([]byte(*f.v)), HashAfter: measure.Hash([]byte(red))})
			*f.v = red
		}
		for j := range b.Redacted {
			if b.Redacted[j].Bead == "" {
				b.Redacted[j].Bead = x.ID
			}
		}
	}
	return nil
}

// ScanName is the name the Beads store's text is scanned for secrets
// under, which the paths of an allowlist match.
const ScanName = "beads"

// decodeBead decodes one line; skip is true for records that are not
// issues and for deleted issues.
func decodeBead(line []byte) (Bead, bool, *Error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil || obj == nil {
		msg := "must be a JSON object (one issue per line)"
		var se *json.SyntaxError
		if errors.As(err, &se) {
			msg = "invalid JSON: " + se.Error()
		}
		return Bead{}, false, &Error{Msg: msg}
	}
	str := func(key string) (string, *Error) {
		raw, ok := obj[key]
		if !ok || string(raw) == "null" {
			return "", nil
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", &Error{Field: key, Msg: "must be a string, not " + string(raw)}
		}
		return s, nil
	}
	typ, err := str("_type")
	if err != nil {
		return Bead{}, false, err
	}
	if typ != "" && typ != "issue" {
		return Bead{}, true, nil
	}
	var b Bead
	for _, f := range []struct {
		key string
		dst *string
	}{{"id", &b.ID}, {"title", &b.Title}, {"description", &b.Description}, {"status", &b.Status}} {
		if *f.dst, err = str(f.key); err != nil {
			return Bead{}, false, err
		}
	}
	if strings.TrimSpace(b.ID) == "" {
		return Bead{}, false, &Error{Field: "id", Msg: "missing (every issue needs an id)"}
	}
	if b.Status == "" {
		b.Status = "open"
	}
	return b, b.Status == "tombstone", nil
}

// Section renders the Beads section, or "" when there are no beads:
//
//	## Beads Mode: Progress Track
//
//	Completed: bd-1, bd-2
//
//	Active:
//	- {title} ({id}): {description}
//
// Completed beads (status closed) are listed by id, comma-separated; every
// other bead is a bullet with its title, id and description (left out when
// empty; its later lines indented by two spaces, so that they stay in the
// bullet); a bead without a title is "- ({id})". Either part is left out
// when it has no beads. Line breaks in a title or id become spaces.
func Section(beads []Bead) string {
	var done []string
	var active []string
	for _, b := range beads {
		id := oneLine(b.ID)
		if b.Completed() {
			done = append(done, id)
			continue
		}
		item := "- (" + id + ")"
		if t := oneLine(b.Title); t != "" {
			item = "- " + t + " (" + id + ")"
		}
		if d := strings.TrimSpace(strings.ReplaceAll(b.Description, "\r\n", "\n")); d != "" {
			lines := strings.Split(d, "\n")
			for i := 1; i < len(lines); i++ {
				if strings.TrimSpace(lines[i]) == "" {
					lines[i] = ""
				} else {
					lines[i] = "  " + lines[i]
				}
			}
			item += ": " + strings.Join(lines, "\n")
		}
		active = append(active, item)
	}
	if len(done) == 0 && len(active) == 0 {
		return ""
	}
	parts := []string{Heading}
	if len(done) > 0 {
		parts = append(parts, "Completed: "+strings.Join(done, ", "))
	}
	if len(active) > 0 {
		parts = append(parts, "Active:\n"+strings.Join(active, "\n"))
	}
	return strings.Join(parts, "\n\n")
}

func oneLine(s string) string {
	return strings.TrimSpace(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s))
}
