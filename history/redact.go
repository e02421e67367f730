package history

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/ctxaudit/ctx/internal/mdtext"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/secrets"
)

// ScanName is the name messages are scanned under, which the paths of a
// secrets allowlist match (an attachment is scanned under its storage
// key); the Discussion History section of a pack and of a manifest is
// scanned under it too.
const ScanName = mdtext.HistoryScanName

// Redaction records the credentials replaced in one piece of a message, or
// in one attachment.
type Redaction struct {
	// MessageID is the message's id; "" for an attachment.
	MessageID string `json:"messageId,omitempty"`
	// Where names the piece: "part 2 text", "part 3 args", "part 3
	// result", "part 1 ocrResult", or "attachment KEY".
	Where string `json:"where"`
	// Secrets are the credentials found: rule, line and column in the
	// piece (never the secret).
	Secrets []secrets.Finding `json:"secrets"`
	// HashBefore and HashAfter are the BLAKE3 hashes of the piece before
	// and after redaction.
	HashBefore string `json:"hashBefore"`
	HashAfter  string `json:"hashAfter"`
}

func newRedaction(id, where, before, after string, found []secrets.Finding) Redaction {
	return Redaction{MessageID: id, Where: where, Secrets: found,
		HashBefore: measure.Hash([]byte(before)), HashAfter: measure.Hash([]byte(after))}
}

// redactMessages replaces the credentials in the parts of msgs, in place.
func redactMessages(ctx context.Context, sc secrets.Scanner, msgs []Message, rep *Report) error {
	for i := range msgs {
		m := &msgs[i]
		for j := range m.ContentParts {
			p := &m.ContentParts[j]
			where := "part " + strconv.Itoa(j+1) + " "
			text := func(field string, s *string) error {
				if *s == "" {
					return nil
				}
				red, found, err := sc.Redact(ctx, ScanName, *s)
				if err != nil || len(found) == 0 {
					return err
				}
				rep.Redactions = append(rep.Redactions, newRedaction(m.ID, where+field, *s, red, found))
				*s = red
				return nil
			}
			raw := func(field string, r *json.RawMessage) error {
				if len(*r) == 0 {
					return nil
				}
				s := string(*r)
				red, found, err := sc.Redact(ctx, ScanName, s)
				if err != nil || len(found) == 0 {
					return err
				}
				if !json.Valid([]byte(red)) {
					// the replacement broke the JSON (a secret that spans
					// an escape): keep the redacted text as a JSON string
					b, _ := json.Marshal(red)
					red = string(b)
				}
				rep.Redactions = append(rep.Redactions, newRedaction(m.ID, where+field, s, red, found))
				*r = json.RawMessage(red)
				return nil
			}
			var err error
			switch p.Type {
			case PartText, PartReasoning:
				err = text("text", &p.Text)
			case PartImage:
				err = text("ocrResult", &p.OCRResult)
			case PartToolCall:
				if err = raw("args", &p.Args); err == nil {
					err = raw("result", &p.Result)
				}
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// redactAttachments replaces the credentials in the contents read, in
// place, once per key.
func redactAttachments(ctx context.Context, sc secrets.Scanner, keys []string, contents map[string]readResult, rep *Report) error {
	for _, k := range keys {
		r, ok := contents[k]
		if !ok || r.err != nil || r.content == "" {
			continue
		}
		red, found, err := sc.Redact(ctx, k, r.content)
		if err != nil {
			return err
		}
		if len(found) == 0 {
			continue
		}
		rep.Redactions = append(rep.Redactions, newRedaction("", "attachment "+k, r.content, red, found))
		r.content = red
		contents[k] = r
	}
	return nil
}
