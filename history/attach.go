package history

import (
	"context"
	"errors"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ctxaudit/ctx/internal/mdtext"

	"github.com/ctxaudit/ctx/internal/goroutine"
)

// The original's inline limits.
const (
	maxInlineFileLines = 500
	previewLines       = 100
)

// AttachmentStatus says what happened to one attachment.
type AttachmentStatus string

// The attachment statuses.
const (
	// AttachmentInlined: the whole content is in the context.
	AttachmentInlined AttachmentStatus = "inlined"
	// AttachmentTruncated: part of the content is in the context, with a
	// TRUNCATED note.
	AttachmentTruncated AttachmentStatus = "truncated"
	// AttachmentMissing: the resolver has no content for the key.
	AttachmentMissing AttachmentStatus = "missing"
	// AttachmentEmpty: the content is empty; the original drops it.
	AttachmentEmpty AttachmentStatus = "empty"
	// AttachmentError: the resolver failed (the original swallows this).
	AttachmentError AttachmentStatus = "error"
	// AttachmentRetrieval: a session-retrieval block, no content read.
	AttachmentRetrieval AttachmentStatus = "retrieval"
	// AttachmentToolOnly: a local file the model must read with tools.
	AttachmentToolOnly AttachmentStatus = "tool-only"
	// AttachmentSandbox: a sandbox metadata block, no content read.
	AttachmentSandbox AttachmentStatus = "sandbox"
	// AttachmentSkipped: nothing to read (no storage key) and no block.
	AttachmentSkipped AttachmentStatus = "skipped"
)

// AttachmentKind tells a file from a link.
type AttachmentKind string

// The attachment kinds.
const (
	AttachmentFileKind AttachmentKind = "file"
	AttachmentLinkKind AttachmentKind = "link"
)

// AttachmentReport reports one file or link of a message in the context.
type AttachmentReport struct {
	// MessageID is the id of the message the attachment belongs to.
	MessageID string `json:"messageId"`
	// Kind is file or link.
	Kind AttachmentKind `json:"kind"`
	// Name is the file name or link title.
	Name string `json:"name"`
	// Key is the FILE_KEY (storage key, local:<path> or
	// session-attachment:<id>), empty when there is none.
	Key string `json:"key,omitempty"`
	// Index is the FILE_INDEX of its block, 0 when no block was written.
	Index int `json:"index"`
	// Status says what happened to it.
	Status AttachmentStatus `json:"status"`
	// Bytes and Lines measure the content read (UTF-8 bytes, "\n"-split
	// lines as FILE_LINES counts them).
	Bytes int `json:"bytes,omitempty"`
	Lines int `json:"lines,omitempty"`
	// Error is the resolver's error for AttachmentError.
	Error string `json:"error,omitempty"`

	pos int // position of the message in the output, before the token budget
}

// readResult is one resolver answer.
type readResult struct {
	content string
	err     error
}

// readAll reads every key with at most n reads in flight.
func readAll(ctx context.Context, r AttachmentResolver, keys []string, n int) (map[string]readResult, error) {
	out := make(map[string]readResult, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	if r == nil {
		for _, k := range keys {
			out[k] = readResult{err: ErrNotFound}
		}
		return out, nil
	}
	results := make([]readResult, len(keys))
	work := make(chan int)
	var wg sync.WaitGroup
	// a panic of a resolver is raised again here, once the workers are done
	var panics goroutine.Catcher
	defer panics.Repanic()
	for range min(n, len(keys)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				panics.Do(func() {
					s, err := r.Read(ctx, keys[i])
					results[i] = readResult{content: validUTF8(s), err: err}
				})
			}
		}()
	}
feed:
	for i := range keys {
		select {
		case work <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, k := range keys {
		out[k] = results[i]
	}
	return out, nil
}

// injectAttachments adds the attachment blocks to msgs, in place.
func injectAttachments(ctx context.Context, msgs []Message, o Options, rep *Report) error {
	if o.SandboxMode {
		for i := range msgs {
			if err := ctx.Err(); err != nil {
				return err
			}
			injectSandbox(&msgs[i], i, o, rep)
		}
		return nil
	}
	var keys []string
	seen := map[string]bool{}
	add := func(k string) {
		if k != "" && !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	for _, m := range msgs {
		for _, f := range m.Files {
			if f.RagMode != RagModeSessionRetrieval {
				add(f.StorageKey)
			}
		}
		for _, l := range m.Links {
			add(l.StorageKey)
		}
	}
	n := o.ReadConcurrency
	if n == 0 {
		n = DefaultReadConcurrency
	}
	contents, err := readAll(ctx, o.AttachmentResolver, keys, n)
	if err != nil {
		return err
	}
	if o.Redact != nil {
		if err := redactAttachments(ctx, o.Redact, keys, contents, rep); err != nil {
			return err
		}
	}
	for i := range msgs {
		if err := ctx.Err(); err != nil {
			return err
		}
		injectMessage(&msgs[i], i, contents, o, rep)
	}
	return nil
}

// readStatus classifies a resolver answer that yields no content.
func readStatus(r readResult, found bool) (AttachmentStatus, string) {
	switch {
	case !found || errors.Is(r.err, ErrNotFound):
		return AttachmentMissing, ""
	case r.err != nil:
		return AttachmentError, r.err.Error()
	case r.content == "":
		return AttachmentEmpty, ""
	}
	return "", ""
}

func injectMessage(m *Message, pos int, contents map[string]readResult, o Options, rep *Report) {
	if len(m.Files) == 0 && len(m.Links) == 0 {
		return
	}
	var blocks strings.Builder
	index := 1
	content := func(kind AttachmentKind, name, key string) {
		r, found := contents[key]
		ar := AttachmentReport{pos: pos, MessageID: m.ID, Kind: kind, Name: name, Key: key}
		if st, msg := readStatus(r, found); st != "" {
			ar.Status, ar.Error = st, msg
			if o.MarkMissingAttachments {
				ar.Index = index
				blocks.WriteString(missingBlock(index, name, key, st, o))
				index++
			}
			rep.Attachments = append(rep.Attachments, ar)
			return
		}
		block, truncated := buildAttachment(index, name, key, r.content, o)
		ar.Index = index
		index++
		ar.Bytes = len(r.content)
		ar.Lines = jsLineCount(r.content)
		ar.Status = AttachmentInlined
		if truncated {
			ar.Status = AttachmentTruncated
		}
		blocks.WriteString(block)
		rep.Attachments = append(rep.Attachments, ar)
	}
	for _, f := range m.Files {
		switch {
		case f.RagMode == RagModeSessionRetrieval:
			key := retrievalKey(f)
			blocks.WriteString(retrievalBlock(index, f.Name, key, retrievalStatus(f), f.SessionAttachmentBlockedReason, o))
			rep.Attachments = append(rep.Attachments, AttachmentReport{pos: pos, MessageID: m.ID, Kind: AttachmentFileKind, Name: f.Name, Key: key, Index: index, Status: AttachmentRetrieval})
			index++
		case f.StorageKey != "":
			content(AttachmentFileKind, f.Name, f.StorageKey)
		case f.LocalPath != "" && o.ModelSupportToolUseForFile:
			key := "local:" + f.LocalPath
			blocks.WriteString(toolOnlyBlock(index, f.Name, key, o))
			rep.Attachments = append(rep.Attachments, AttachmentReport{pos: pos, MessageID: m.ID, Kind: AttachmentFileKind, Name: f.Name, Key: key, Index: index, Status: AttachmentToolOnly})
			index++
		default:
			rep.Attachments = append(rep.Attachments, AttachmentReport{pos: pos, MessageID: m.ID, Kind: AttachmentFileKind, Name: f.Name, Status: AttachmentSkipped})
		}
	}
	for _, l := range m.Links {
		if l.StorageKey == "" {
			rep.Attachments = append(rep.Attachments, AttachmentReport{pos: pos, MessageID: m.ID, Kind: AttachmentLinkKind, Name: l.Title, Status: AttachmentSkipped})
			continue
		}
		content(AttachmentLinkKind, l.Title, l.StorageKey)
	}
	mergeAttachmentText(m, blocks.String(), o)
}

// retrievalKey is "session-attachment:<id>" when the file has a session
// attachment id, else its storage key, else its id.
func retrievalKey(f MessageFile) string {
	if f.SessionAttachmentID != "" {
		return "session-attachment:" + f.SessionAttachmentID
	}
	if f.StorageKey != "" {
		return f.StorageKey
	}
	return f.ID
}

// retrievalStatus is the index status, then the status, then "pending".
func retrievalStatus(f MessageFile) string {
	switch {
	case f.SessionAttachmentIndexStatus != "":
		return f.SessionAttachmentIndexStatus
	case f.SessionAttachmentStatus != "":
		return f.SessionAttachmentStatus
	}
	return "pending"
}

// mergeAttachmentText adds the concatenated blocks to m. The original (and
// the default) appends them to the first text part's text and rebuilds the
// parts as every non-text part followed by that one text part, so other text
// parts are lost. AttachmentAsOwnPart appends a new text part instead.
func mergeAttachmentText(m *Message, blocks string, o Options) {
	if blocks == "" {
		return
	}
	if o.AttachmentAsOwnPart {
		m.ContentParts = append(m.ContentParts, ContentPart{Type: PartText, Text: strings.TrimPrefix(blocks, "\n\n")})
		return
	}
	existing := ""
	for _, p := range m.ContentParts {
		if p.Type == PartText {
			existing = p.Text
			break
		}
	}
	parts := make([]ContentPart, 0, len(m.ContentParts)+1)
	for _, p := range m.ContentParts {
		if p.Type != PartText {
			parts = append(parts, p)
		}
	}
	m.ContentParts = append(parts, ContentPart{Type: PartText, Text: existing + blocks})
}

// escapeXMLText escapes '&', '<' and '>', as the original does in sandbox
// blocks.
func escapeXMLText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// envelopeTags are the tag names of the attachment envelope, space
// separated.
const envelopeTags = "ATTACHMENT_FILE FILE_INDEX FILE_NAME FILE_KEY FILE_LINES FILE_SIZE FILE_CONTENT TRUNCATED " +
	"MISSING SANDBOX_MODE SANDBOX_PATH PARSED_SANDBOX_PATH RETRIEVAL_MODE INDEX_STATUS BLOCKED_REASON SYSTEM_REMINDER"

// neutralizeEnvelope replaces the '<' of every opening or closing envelope
// tag in s (any case) with "&lt;", leaving all other text as it is.
func neutralizeEnvelope(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	tags := strings.Fields(envelopeTags)
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		rest := s[i+1:]
		rest = strings.TrimPrefix(rest, "/")
		hit := false
		for _, t := range tags {
			if len(rest) >= len(t) && strings.EqualFold(rest[:len(t)], t) {
				hit = true
				break
			}
		}
		if hit {
			b.WriteString("&lt;")
		} else {
			b.WriteByte('<')
		}
		s = s[i+1:]
	}
}

// field returns v with its control characters escaped, and XML-escaped
// when EscapeEnvelope is set.
func (o Options) field(v string) string {
	// a name or key is data: its control characters are escaped (an
	// ordinary name is unchanged), so that it adds no line to the
	// envelope; EscapeEnvelope also escapes the markup
	v = mdtext.Escape(v)
	if o.EscapeEnvelope {
		return escapeXMLText(v)
	}
	return v
}

// buildAttachment is the original's content block. It reports whether the
// content was cut.
func buildAttachment(index int, name, key, content string, o Options) (string, bool) {
	lines := jsLineCount(content)
	size := jsLen(content)
	if o.FileSizeInBytes {
		size = len(content)
	}
	truncLines := o.ModelSupportToolUseForFile && lines > maxInlineFileLines
	body := content
	if truncLines {
		body = firstLines(content, previewLines)
	}
	truncBytes := false
	if o.MaxInlineBytes.Exceeded(int64(len(body))) {
		cut := o.MaxInlineBytes.Int(len(body)) // below len(body), so an int
		for cut > 0 && !utf8.RuneStart(body[cut]) {
			cut--
		}
		body = body[:cut]
		truncBytes = true
	}
	name, key = o.field(name), o.field(key)
	if o.EscapeEnvelope {
		body = neutralizeEnvelope(body)
	}
	var b strings.Builder
	b.WriteString("\n\n<ATTACHMENT_FILE>\n")
	b.WriteString("<FILE_INDEX>" + itoa(index) + "</FILE_INDEX>\n")
	b.WriteString("<FILE_NAME>" + name + "</FILE_NAME>\n")
	b.WriteString("<FILE_KEY>" + key + "</FILE_KEY>\n")
	b.WriteString("<FILE_LINES>" + itoa(lines) + "</FILE_LINES>\n")
	b.WriteString("<FILE_SIZE>" + itoa(size) + " bytes</FILE_SIZE>\n")
	b.WriteString("<FILE_CONTENT>\n")
	b.WriteString(body)
	b.WriteString("\n</FILE_CONTENT>\n")
	switch {
	case truncBytes:
		b.WriteString("<TRUNCATED>Content truncated. Showing first " + itoa(len(body)) + " of " + itoa(len(content)) + " bytes.")
		if o.ModelSupportToolUseForFile {
			b.WriteString(" Use read_file or search_file_content tool with FILE_KEY=\"" + key + "\" to read more content.")
		}
		b.WriteString("</TRUNCATED>\n")
	case truncLines:
		b.WriteString("<TRUNCATED>Content truncated. Showing first " + itoa(previewLines) + " of " + itoa(lines) +
			" lines. Use read_file or search_file_content tool with FILE_KEY=\"" + key + "\" to read more content.</TRUNCATED>\n")
	}
	b.WriteString("</ATTACHMENT_FILE>\n")
	return b.String(), truncLines || truncBytes
}

// firstLines returns the first n "\n"-separated lines of s, joined by "\n".
func firstLines(s string, n int) string {
	i := 0
	for k := 0; k < n; k++ {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			return s
		}
		i += j + 1
	}
	return s[:i-1]
}

// retrievalBlock is the original's session-retrieval block.
func retrievalBlock(index int, name, key, status, blocked string, o Options) string {
	var b strings.Builder
	b.WriteString("\n\n<ATTACHMENT_FILE>\n")
	b.WriteString("<FILE_INDEX>" + itoa(index) + "</FILE_INDEX>\n")
	b.WriteString("<FILE_NAME>" + o.field(name) + "</FILE_NAME>\n")
	b.WriteString("<FILE_KEY>" + o.field(key) + "</FILE_KEY>\n")
	b.WriteString("<FILE_CONTENT>\n</FILE_CONTENT>\n")
	b.WriteString("<RETRIEVAL_MODE>session_attachment_rag</RETRIEVAL_MODE>\n")
	b.WriteString("<INDEX_STATUS>" + o.field(status) + "</INDEX_STATUS>\n")
	if blocked != "" {
		b.WriteString("<BLOCKED_REASON>" + o.field(blocked) + "</BLOCKED_REASON>\n")
	}
	b.WriteString("<SYSTEM_REMINDER>" +
		"This uploaded file is indexed for retrieval, not inlined in the conversation. " +
		"For document-specific questions about this file, use query_session_attachment and then " +
		"read_session_attachment_parents before answering. If the user asks something unrelated to the uploaded file, " +
		"answer normally without retrieval." +
		"</SYSTEM_REMINDER>\n")
	b.WriteString("</ATTACHMENT_FILE>\n")
	return b.String()
}

// toolOnlyBlock is the original's block for a file the model can only read
// with tools.
func toolOnlyBlock(index int, name, key string, o Options) string {
	name, key = o.field(name), o.field(key)
	return "\n\n<ATTACHMENT_FILE>\n" +
		"<FILE_INDEX>" + itoa(index) + "</FILE_INDEX>\n" +
		"<FILE_NAME>" + name + "</FILE_NAME>\n" +
		"<FILE_KEY>" + key + "</FILE_KEY>\n" +
		"<FILE_CONTENT>\n</FILE_CONTENT>\n" +
		"<TRUNCATED>Content preview unavailable. Use read_file or search_file_content tool with FILE_KEY=\"" + key + "\" to inspect this file.</TRUNCATED>\n" +
		"</ATTACHMENT_FILE>\n"
}

// missingBlock is ctx's marker for an attachment that could not be read
// (MarkMissingAttachments).
func missingBlock(index int, name, key string, st AttachmentStatus, o Options) string {
	why := "it was not found"
	switch st {
	case AttachmentEmpty:
		why = "it is empty"
	case AttachmentError:
		why = "reading it failed"
	}
	return "\n\n<ATTACHMENT_FILE>\n" +
		"<FILE_INDEX>" + itoa(index) + "</FILE_INDEX>\n" +
		"<FILE_NAME>" + o.field(name) + "</FILE_NAME>\n" +
		"<FILE_KEY>" + o.field(key) + "</FILE_KEY>\n" +
		"<FILE_CONTENT>\n</FILE_CONTENT>\n" +
		"<MISSING>Attachment content unavailable: " + why + " when this context was built.</MISSING>\n" +
		"</ATTACHMENT_FILE>\n"
}

// injectSandbox adds the sandbox metadata blocks of m's files. Links are not
// injected in sandbox mode.
func injectSandbox(m *Message, pos int, o Options, rep *Report) {
	if len(m.Files) == 0 {
		return
	}
	var blocks strings.Builder
	for i, f := range m.Files {
		key := f.StorageKey
		if f.SessionAttachmentID != "" {
			key = "session-attachment:" + f.SessionAttachmentID
		} else if key == "" {
			key = f.ID
		}
		path := SandboxPath(f)
		parsed := ""
		if !isTextFilePath(f.Name) && f.StorageKey != "" && f.ParserType != "sandbox-raw" {
			parsed = path + "_parsed.txt"
		}
		var b strings.Builder
		b.WriteString("\n\n<ATTACHMENT_FILE>\n")
		b.WriteString("<FILE_INDEX>" + itoa(i+1) + "</FILE_INDEX>\n")
		b.WriteString("<FILE_NAME>" + escapeXMLText(f.Name) + "</FILE_NAME>\n")
		b.WriteString("<FILE_KEY>" + escapeXMLText(key) + "</FILE_KEY>\n")
		b.WriteString("<FILE_SIZE>" + escapeXMLText(formatFileSize(f.ByteLength)) + "</FILE_SIZE>\n")
		b.WriteString("<FILE_CONTENT>\n</FILE_CONTENT>\n")
		b.WriteString("<SANDBOX_MODE>true</SANDBOX_MODE>\n")
		b.WriteString("<SANDBOX_PATH>" + escapeXMLText(path) + "</SANDBOX_PATH>\n")
		if parsed != "" {
			b.WriteString("<PARSED_SANDBOX_PATH>" + escapeXMLText(parsed) + "</PARSED_SANDBOX_PATH>\n")
		}
		if f.RagMode == RagModeSessionRetrieval {
			b.WriteString("<RETRIEVAL_MODE>session_attachment_rag</RETRIEVAL_MODE>\n")
			b.WriteString("<INDEX_STATUS>" + escapeXMLText(retrievalStatus(f)) + "</INDEX_STATUS>\n")
			if f.SessionAttachmentBlockedReason != "" {
				b.WriteString("<BLOCKED_REASON>" + escapeXMLText(f.SessionAttachmentBlockedReason) + "</BLOCKED_REASON>\n")
			}
			b.WriteString("<SYSTEM_REMINDER>" +
				"This uploaded file is indexed for retrieval and is also available in the sandbox working directory. " +
				"For document-specific questions about this file, use query_session_attachment and then " +
				"read_session_attachment_parents before answering. Use code_execution or read_file when direct file processing is needed." +
				"</SYSTEM_REMINDER>\n")
		} else {
			b.WriteString("<SYSTEM_REMINDER>" +
				"This uploaded file is available in the sandbox working directory, not inlined in the conversation. ")
			if parsed != "" {
				b.WriteString("Use read_file on PARSED_SANDBOX_PATH for extracted text, or code_execution on SANDBOX_PATH for the original binary. Use those paths exactly — uploads that share a filename live in distinct subdirectories.")
			} else {
				b.WriteString("Use read_file or code_execution on SANDBOX_PATH to inspect it. Use that path exactly — uploads that share a filename live in distinct subdirectories.")
			}
			b.WriteString("</SYSTEM_REMINDER>\n")
		}
		b.WriteString("</ATTACHMENT_FILE>\n")
		blocks.WriteString(b.String())
		rep.Attachments = append(rep.Attachments, AttachmentReport{pos: pos, MessageID: m.ID, Kind: AttachmentFileKind, Name: f.Name, Key: key, Index: i + 1, Status: AttachmentSandbox})
	}
	mergeAttachmentText(m, blocks.String(), o)
}

// jsLineCount is the original's FILE_LINES: content.split("\n").length, so
// "a\n" counts 2 and "" counts 1. It differs on purpose from measure.Lines,
// the line count of every size ctx records; it is used only where the
// envelope must match the original byte for byte.
func jsLineCount(s string) int { return strings.Count(s, "\n") + 1 }
