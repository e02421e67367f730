package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ctxaudit/ctx/history"
	"github.com/ctxaudit/ctx/secrets"
	"github.com/ctxaudit/ctx/secrets/gitleaks"
)

// Secrets is the [secrets] table: whether the text sent is redacted by
// default, and the allowlist of known false positives.
//
//	[secrets]
//	redact = true                    # as if --redact were given
//	scan = false                     # ctx aggregate does not look for credentials
//
//	[[secrets.allow]]
//	rules = ["generic-api-key"]      # rule ids; empty: every rule
//	paths = ["testdata/**"]          # globs of project-relative paths (or source ids)
//	regexes = ["^EXAMPLE"]           # matched against the secret
//	reason = "fixtures of the parser tests"
//
// An entry allows a finding that matches every key it sets, and must set
// at least one of rules, paths and regexes.
type Secrets struct {
	// Redact is redact; nil when absent (no redaction).
	Redact *bool
	// Scan is scan; nil when absent (ctx aggregate scans every pack and
	// warns of each credential it leaves in).
	Scan *bool
	// Allow are the [[secrets.allow]] entries, in order, each with its
	// Where ("ctx.toml:14").
	Allow []secrets.Allow

	scanner secrets.Scanner // with Allow, made when the table is decoded
}

func decodeSecrets(t table, c *Config) error {
	st, ok, err := t.Sub("secrets")
	if err != nil || !ok {
		return err
	}
	if err := st.CheckKeys("redact", "scan", "allow"); err != nil {
		return err
	}
	if b, ok, err := st.Bool("scan"); err != nil {
		return err
	} else if ok {
		c.Secrets.Scan = &b
	}
	if b, ok, err := st.Bool("redact"); err != nil {
		return err
	} else if ok {
		c.Secrets.Redact = &b
	}
	entries, _, err := st.Tables("allow")
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := e.CheckKeys("rules", "paths", "regexes", "reason"); err != nil {
			return err
		}
		a := secrets.Allow{Where: fmt.Sprintf("%s:%d", c.File, t.doc.Line(e.Path))}
		for _, k := range []struct {
			key string
			dst *[]string
		}{{"rules", &a.Rules}, {"paths", &a.Paths}, {"regexes", &a.Regexes}} {
			v, _, err := e.Strings(k.key)
			if err != nil {
				return err
			}
			*k.dst = v
		}
		if a.Reason, _, err = e.String("reason"); err != nil {
			return err
		}
		renameOldHistoryPath(e, &a, c)
		// check the entry as the scanner will, naming its line and field
		if _, err := gitleaks.New(secrets.Options{Allow: []secrets.Allow{a}}); err != nil {
			var ae *secrets.AllowError
			if errors.As(err, &ae) {
				// name the key's line when the message is about one
				for _, k := range []string{"rules", "paths", "regexes"} {
					if msg, ok := strings.CutPrefix(ae.Msg, k+": "); ok {
						return e.Errorf(k, "%s", msg)
					}
				}
				return t.doc.Errorf(e.Path, "%s", ae.Msg)
			}
			return err
		}
		c.Secrets.Allow = append(c.Secrets.Allow, a)
	}
	c.Secrets.scanner, err = gitleaks.New(c.SecretsOptions())
	return err
}

// oldHistoryScanName is the name the chat history was scanned under
// before history.ScanName ("history").
const oldHistoryScanName = "discussion_history"

// renameOldHistoryPath replaces a path of an allowlist entry that is the
// history's old scan name with its name now, with a warning, so that the
// entry goes on allowing what it allowed.
func renameOldHistoryPath(e table, a *secrets.Allow, c *Config) {
	_, isArray := e.M["paths"].([]any)
	for i, p := range a.Paths {
		if p != oldHistoryScanName {
			continue
		}
		a.Paths[i] = history.ScanName
		field := e.Field("paths")
		if isArray {
			field = indexKey(field, i)
		}
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %q is now %q", e.doc.at(field), oldHistoryScanName, history.ScanName))
	}
}

// SecretsOptions returns the options of the secret scan: the allowlist.
func (c *Config) SecretsOptions() secrets.Options {
	return secrets.Options{Allow: append([]secrets.Allow(nil), c.Secrets.Allow...)}
}

// RedactScanner returns the scanner that redacts (--redact, redact =
// true, the MCP tools): the default rules and no allowlist. A
// repository's [[secrets.allow]] may silence findings in its own files
// (see [Config.Scanner]), never the redaction of what the user asked to
// redact: a cloned repository must not be able to switch --redact off.
func (c *Config) RedactScanner() (secrets.Scanner, error) { return gitleaks.Default() }

// Scanner returns the secret scanner of the file's findings: the default
// rules and its allowlist, which applies to the project's own files and
// texts only (the scanner never allows a finding in a file outside the
// project, named by an absolute path). Redaction uses [Config.RedactScanner].
func (c *Config) Scanner() (secrets.Scanner, error) {
	if c.Secrets.scanner != nil {
		return c.Secrets.scanner, nil
	}
	return gitleaks.New(c.SecretsOptions())
}
