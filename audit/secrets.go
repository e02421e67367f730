package audit

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/measure"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/aggregate/beads"
	"github.com/ctxaudit/ctx/history"
	"github.com/ctxaudit/ctx/internal/display"
	"github.com/ctxaudit/ctx/internal/goroutine"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/secrets"
)

// CodeSecret: a credential in the text that is sent (an included
// fragment, an aggregated file's block, the chat history); error.
// RelatedID is the rule that found it, Line its line in the file when
// known; the message never holds the secret.
const CodeSecret Code = "secret"

// CodeRedacted: credentials that redaction replaced before the text was
// sent (manifest "redactions"); info. RelatedID names the rules.
const CodeRedacted Code = "redacted"

// redactionFindings reports each record of m's redactions, in order.
func redactionFindings(m *manifest.Manifest) []Finding {
	var out []Finding
	for _, r := range m.Redactions {
		msg := secrets.Summary(r.Secrets) + ", replaced by [REDACTED:rule]"
		if r.Where != "" {
			msg += " in " + r.Where
		}
		out = append(out, Finding{SourceID: r.ID, Code: CodeRedacted, Severity: Info, RelatedID: secrets.Rules(r.Secrets), Message: msg})
	}
	return out
}

// CodeAttachmentUnread: an attachment of a message sent whose content was
// not read (manifest history.unread_attachments): refused by the resolver
// (a key that leads out of the attachments directory, a special file) is
// a warning, missing or empty is info. RelatedID is the key.
const CodeAttachmentUnread Code = "attachment_unread"

// attachmentFindings reports the unread attachments of m's history.
func attachmentFindings(m *manifest.Manifest) []Finding {
	if m.History == nil {
		return nil
	}
	var out []Finding
	for _, a := range m.History.Unread {
		sev, why := Info, string(a.Status)
		if a.Status == history.AttachmentError {
			sev, why = Warning, "not read: "+a.Error
		}
		msg := "attachment " + display.Path(a.Name, "") + " of message " + display.Path(a.MessageID, "") + " (" + display.Path(a.Key, "") + "): " + display.Path(why, "")
		out = append(out, Finding{SourceID: historyID, Code: CodeAttachmentUnread, Severity: sev, RelatedID: a.Key, Message: msg})
	}
	return out
}

// historyID is the SourceID of the findings in the chat history, and
// filesID of those in a files section whose blocks cannot be told apart.
const (
	historyID = string(manifest.SectionHistory)
	filesID   = string(manifest.SectionFiles)
)

// Secrets scans what m sends with sc, as RunContext does with
// Options.Secrets: the fragment of every included source, the block of
// every aggregated file and the Beads and Discussion History sections, in
// rendering order. Each finding is a CodeSecret error naming the source
// or file and the line; none holds the secret. ctx render prints them on
// stderr, so that a rendered context never holds a credential without a
// word.
func Secrets(ctx context.Context, m *manifest.Manifest, sc secrets.Scanner) ([]Finding, error) {
	return secretFindings(ctx, m, sc)
}

// SecretWarnings says where each CodeSecret finding of findings is, for
// a terminal ("file:client.py: credential (aws-access-token) at line 3
// would be sent; --redact replaces it"), escaped: the first
// aggregate.SecretsShown (as a pack's warnings),
// then a count of the rest; nil when there is none.
func SecretWarnings(findings []Finding) []string {
	var out []string
	n := 0
	for _, f := range findings {
		if f.Code == CodeSecret {
			n++
		}
	}
	for _, f := range findings {
		if f.Code != CodeSecret {
			continue
		}
		if len(out) == aggregate.SecretsShown {
			return append(out, display.MoreCredentials(n-len(out))+" in the rendered context (ctx audit lists each)")
		}
		out = append(out, display.Path(f.SourceID, "")+": "+display.Path(f.Message, ""))
	}
	return out
}

// secretFindings scans what m sends, in rendering order: the fragment of
// every included source, the files the agent loads by itself (read again,
// when they still hold the recorded bytes), the block of every aggregated
// file, the chat history.
func secretFindings(ctx context.Context, m *manifest.Manifest, sc secrets.Scanner) ([]Finding, error) {
	// the texts are scanned in parallel and reported in this order
	var jobs []scanJob
	add := func(id, name, text string, where func(f secrets.Finding) (line int, msg string)) {
		jobs = append(jobs, scanJob{id: id, name: name, text: text, where: where})
	}
	for i, s := range m.Sources {
		if !s.Included || i >= len(m.Fragments) || m.Fragments[i].Text == "" {
			continue
		}
		name := m.ScanName(&m.Sources[i])
		// a fragment is the start of its source, so its lines are the
		// file's
		add(s.ID, name, m.Fragments[i].Text, func(f secrets.Finding) (int, string) {
			return f.Line, atLine(f.Line)
		})
	}
	// what the agent loads by itself: ctx does not send it and cannot
	// redact it, but the model gets it all the same
	for i := range m.Sources {
		src := &m.Sources[i]
		text, ok := nativeText(m, src)
		if !ok {
			continue
		}
		jobs = append(jobs, scanJob{id: src.ID, name: m.ScanName(src), text: text, native: true,
			where: func(f secrets.Finding) (int, string) { return f.Line, atLine(f.Line) }})
	}
	blocks, ok := m.FileBlocks()
	for _, b := range blocks {
		r := m.Files[b.Row]
		start, fenced := blockBody(b.Text)
		add(fileID(r), r.Path, b.Text, func(f secrets.Finding) (int, string) {
			if f.Start < start {
				return 0, "in the heading"
			}
			// lines of the view: the block's lines after the heading, the
			// blank line and the fence
			skip := strings.Count(b.Text[:start], "\n")
			line := f.Line - skip
			if r.ViewMode == aggregate.ViewFull && fenced {
				return line, atLine(line)
			}
			return 0, atLine(line) + " of the " + string(r.ViewMode) + " view"
		})
	}
	for _, sec := range m.Sections {
		switch {
		case sec.ID == manifest.SectionHistory:
			add(historyID, history.ScanName, sec.Text, func(f secrets.Finding) (int, string) {
				where := atLine(f.Line) + " of the history"
				if n := excerpt(sec.Text, f.Start); n > 0 {
					where = "in discussion excerpt " + strconv.Itoa(n) + " (" + where + ")"
				}
				return 0, where
			})
		case sec.ID == manifest.SectionBeads:
			add(string(manifest.SectionBeads), beads.ScanName, sec.Text, func(f secrets.Finding) (int, string) {
				return 0, atLine(f.Line) + " of the Beads section"
			})
		case sec.ID == manifest.SectionFiles && !ok:
			// the blocks could not be told apart: the section as a whole
			add(filesID, filesID, sec.Text, func(f secrets.Finding) (int, string) {
				return 0, atLine(f.Line) + " of the files section"
			})
		}
	}
	return scanAll(ctx, sc, jobs)
}

// scanJob is one text to scan: the finding's source id, the name the text
// is scanned under, and how a secret's place is said.
type scanJob struct {
	id, name, text string
	where          func(f secrets.Finding) (line int, msg string)
	native         bool // a file the agent loads by itself
}

// maxNativeScan bounds the bytes of a native file read for the scan.
const maxNativeScan = 4 << 20

// nativeText returns the text of src when it is a file the agent loads by
// itself (delivery native, not a duplicate) that can be read from its path
// (relative paths against the project) and still has the bytes the
// manifest recorded: a stored manifest audited elsewhere, or after the
// file changed, scans nothing of it.
func nativeText(m *manifest.Manifest, src *manifest.Source) (string, bool) {
	if src.Delivery != discover.DeliveryNative || src.DuplicateOf != "" || src.SourceHash == nil || src.Path == "" {
		return "", false
	}
	p := src.Path
	if !filepath.IsAbs(p) {
		if m.ProjectDir == "" {
			return "", false
		}
		p = filepath.Join(m.ProjectDir, p)
	}
	f, err := os.Open(p)
	if err != nil {
		return "", false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxNativeScan+1))
	if err != nil || len(data) > maxNativeScan || measure.Hash(data) != *src.SourceHash || !utf8.Valid(data) {
		return "", false
	}
	return string(data), true
}

// scanAll scans the texts of jobs on GOMAXPROCS workers and returns their
// findings in the order of jobs; the first error (or the context's) stops
// it. A worker's panic is raised again here.
func scanAll(parent context.Context, sc secrets.Scanner, jobs []scanJob) ([]Finding, error) {
	results := make([][]Finding, len(jobs))
	errs := make([]error, len(jobs))
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	var catcher goroutine.Catcher
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				catcher.Do(func() {
					j := jobs[i]
					found, err := sc.Scan(ctx, j.name, j.text)
					if err != nil {
						errs[i] = err
						cancel()
						return
					}
					for _, f := range found {
						line, msg := j.where(f)
						msg = "credential (" + f.Rule + ") " + msg + " would be sent; --redact replaces it"
						if j.native {
							msg = "credential (" + f.Rule + ") " + atLine(line) + " of a file the agent loads by itself: the agent sends it, and ctx cannot redact it; remove it from the file"
						}
						results[i] = append(results[i], Finding{
							SourceID: j.id, Code: CodeSecret, Severity: Error, RelatedID: f.Rule, Line: line, Message: msg,
						})
					}
				})
			}
		}()
	}
feed:
	for i := range jobs {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	catcher.Repanic()
	if err := parent.Err(); err != nil {
		return nil, err // some texts were not scanned
	}
	var out []Finding
	for i := range jobs {
		if errs[i] != nil {
			return nil, errs[i]
		}
		out = append(out, results[i]...)
	}
	return out, nil
}

func atLine(n int) string {
	if n <= 0 {
		return "in the file's name"
	}
	return "at line " + strconv.Itoa(n)
}

// blockBody returns where the view of a file's block starts (after the
// heading, the blank line and, for a fenced view, the fence's line), and
// whether the view is fenced.
func blockBody(block string) (int, bool) {
	i := strings.Index(block, "\n\n")
	if i < 0 {
		return len(block), false
	}
	body := i + 2
	rest := block[body:]
	if strings.HasPrefix(rest, "```") || strings.HasPrefix(rest, "~~~") {
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			return body + nl + 1, true
		}
	}
	return body, false
}

// excerpt is the number of the discussion excerpt ("### Discussion
// Excerpt N") that holds the byte at off, or 0.
func excerpt(text string, off int) int {
	const heading = "### Discussion Excerpt "
	i := strings.LastIndex(text[:off], "\n"+heading)
	if i < 0 {
		return 0
	}
	rest := text[i+1+len(heading):]
	end := strings.IndexByte(rest, '\n')
	if end < 0 {
		end = len(rest)
	}
	n, err := strconv.Atoi(rest[:end])
	if err != nil {
		return 0
	}
	return n
}
