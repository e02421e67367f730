package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/secrets"
)

// errUnredacted refuses redact: false on a server that does not allow it.
var errUnredacted = errors.New("redact: false is refused: the model is a third party, so this server sends file contents with their " +
	"credentials redacted; the user can allow redact: false by starting it with ctx mcp --allow-unredacted")

// redacting returns whether a call redacts: yes unless it says redact:
// false, which only a server with AllowUnredacted accepts.
func (s *server) redacting(redact *bool) (bool, error) {
	if redact == nil || *redact {
		return true, nil
	}
	if !s.o.AllowUnredacted {
		return false, errUnredacted
	}
	return false, nil
}

// located is a credential as the notes name it: where (a path, a
// section) and the line there (0: unknown), and the rule; never the
// secret.
type located struct {
	at   string
	line int
	rule string
}

func (l located) String() string {
	if l.line > 0 {
		return l.at + ":" + strconv.Itoa(l.line) + ": " + l.rule
	}
	return l.at + ": " + l.rule
}

// places lists where the credentials are, the first
// aggregate.SecretsShown, then how many more there are (of n in all).
func places(at []located, n int) string {
	var parts []string
	for i, l := range at {
		if i == aggregate.SecretsShown {
			break
		}
		parts = append(parts, l.String())
	}
	list := strings.Join(parts, "; ")
	if more := n - len(parts); more > 0 {
		if list != "" {
			list += "; "
		}
		list += fmt.Sprintf("and %d more", more)
	}
	return list
}

// redactedNote says what redaction replaced: found are the findings
// replaced, at where they were.
func redactedNote(found []secrets.Finding, at []located) string {
	if len(found) == 0 {
		return "credentials are redacted (the default): none was found"
	}
	return secrets.Summary(found) + ", each replaced by [REDACTED:rule]: " + places(at, len(found))
}

// unredactedNote says which credentials a text sent with redact: false
// holds.
func unredactedNote(at []located) string {
	if len(at) == 0 {
		return "not redacted (redact: false): no credential was found"
	}
	noun := "credentials"
	if len(at) == 1 {
		noun = "credential"
	}
	return fmt.Sprintf("%d %s sent as they are, not redacted (redact: false): %s", len(at), noun, places(at, len(at)))
}

// pieceName names a row of m for the notes: a source by its path (as the
// scanner names it), a file ("file:PATH") by its path, anything else by
// its id.
func pieceName(m *manifest.Manifest, id string) string {
	for i := range m.Sources {
		if m.Sources[i].ID == id {
			return m.ScanName(&m.Sources[i])
		}
	}
	if p, ok := strings.CutPrefix(id, "file:"); ok {
		return p
	}
	return id
}

// manifestRedactions returns what m records as redacted as it was built
// (manifest.Options.Redact): the findings and where each is.
func manifestRedactions(m *manifest.Manifest) ([]secrets.Finding, []located) {
	var found []secrets.Finding
	var at []located
	for _, r := range m.Redactions {
		name := pieceName(m, r.ID)
		if r.Where != "" {
			name += " (" + r.Where + ")"
		}
		for _, f := range r.Secrets {
			found = append(found, f)
			at = append(at, located{name, f.Line, f.Rule})
		}
	}
	return found, at
}

// renderedSecrets scans what the rendered text of m holds (audit.Secrets:
// the included fragments, the files, the sections; not what the agent
// loads by itself, which render does not send) and says where each
// credential is.
func renderedSecrets(ctx context.Context, m *manifest.Manifest, sc secrets.Scanner) ([]located, error) {
	found, err := audit.Secrets(ctx, m, sc)
	if err != nil {
		return nil, err
	}
	sent := map[string]bool{}
	sources := map[string]bool{}
	for i, src := range m.Sources {
		sources[src.ID] = true
		if src.Included && i < len(m.Fragments) && m.Fragments[i].Text != "" {
			sent[src.ID] = true
		}
	}
	var at []located
	for _, f := range found {
		if sources[f.SourceID] && !sent[f.SourceID] {
			continue
		}
		at = append(at, located{pieceName(m, f.SourceID), f.Line, f.RelatedID})
	}
	return at, nil
}

// outsideNote names the content of the rendered text of m that was read
// from outside the project directory dir (a shared file, an instruction
// file above the project, a file of an allow_outside directory); "" when
// there is none.
func outsideNote(m *manifest.Manifest, dir string) string {
	var names []string
	for i, src := range m.Sources {
		if !src.Included || i >= len(m.Fragments) || m.Fragments[i].Text == "" {
			continue
		}
		p := src.CanonicalPath
		if p == "" {
			p = src.Path
		}
		if m.OutsideProject(p) {
			names = append(names, src.Path+" ("+src.ID+")")
		}
	}
	for _, r := range m.Files {
		if r.RealPath != "" && r.Status == aggregate.StatusOK {
			names = append(names, r.Path+" ("+r.RealPath+")")
		}
	}
	return outside(names, "text", dir)
}

// outside words the note on content from outside the project directory.
func outside(names []string, what, dir string) string {
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("the %s holds content read from outside the project directory %s: %s", what, dir, strings.Join(names, ", "))
}

// packRedactions returns the credentials Options.Redact replaced in the
// files and the Beads of res, and where each was.
func packRedactions(res *aggregate.Result) ([]secrets.Finding, []located) {
	var found []secrets.Finding
	var at []located
	for _, it := range res.Items {
		if it.Redacted == nil {
			continue
		}
		for _, f := range it.Redacted.Secrets {
			found = append(found, f)
			at = append(at, located{it.Path, f.Line, f.Rule})
		}
	}
	if res.Beads != nil {
		for _, r := range res.Beads.Redacted {
			for _, f := range r.Secrets {
				found = append(found, f)
				at = append(at, located{"Beads " + r.Bead + " " + r.Field, f.Line, f.Rule})
			}
		}
	}
	return found, at
}

// packSecrets says where the credentials Options.Scan found in the pack
// res are (aggregate.Result.UnredactedSecrets).
func packSecrets(res *aggregate.Result) []located {
	var at []located
	for _, s := range res.UnredactedSecrets() {
		name := s.Path
		if s.Section {
			name = "the " + name + " section"
		}
		at = append(at, located{name, s.Finding.Line, s.Finding.Rule})
	}
	return at
}

// packOutside names the files of the pack res read from outside the
// project directory dir.
func packOutside(res *aggregate.Result, dir string) string {
	var names []string
	for _, it := range res.Items {
		if it.RealPath != "" && it.AutoAggregate && it.Status == aggregate.StatusOK {
			names = append(names, it.Path+" ("+it.RealPath+")")
		}
	}
	return outside(names, "markdown", dir)
}

// withoutSecrets is a receiving middleware: the text of an error result,
// and the message of a protocol error, have their credentials redacted
// (an error may quote a value of ctx.toml or of a file), as the command's
// stderr does.
func (s *server) withoutSecrets(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		// a cancelled call's error is redacted all the same
		ctx = context.WithoutCancel(ctx)
		if err != nil {
			return res, s.redactError(ctx, err)
		}
		if r, ok := res.(*mcp.CallToolResult); ok && r.IsError {
			for _, c := range r.Content {
				if tc, ok := c.(*mcp.TextContent); ok {
					tc.Text = s.redactText(ctx, tc.Text)
				}
			}
		}
		return res, nil
	}
}

// redactText is text with its credentials redacted; text itself when it
// cannot be scanned.
func (s *server) redactText(ctx context.Context, text string) string {
	red, _, err := s.scanner.Redact(ctx, "error", text)
	if err != nil {
		return text
	}
	return red
}

// redactError is err, or an error of the same code whose message has its
// credentials redacted.
func (s *server) redactError(ctx context.Context, err error) error {
	msg := s.redactText(ctx, err.Error())
	if msg == err.Error() {
		return err
	}
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return &jsonrpc.Error{Code: we.Code, Message: s.redactText(ctx, we.Message)}
	}
	return errors.New(msg)
}
