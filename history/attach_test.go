package history

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ctxaudit/ctx/internal/goldenfile"
)

// golden compares got with testdata/name, rewriting the file when CTX_UPDATE
// is set. Golden files are only ever written by this function.
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), []byte(got))
}

func withFile(m Message, files ...MessageFile) Message { m.Files = files; return m }

func file(name, key string) MessageFile {
	return MessageFile{ID: "f-" + key, Name: name, FileType: "text/plain", StorageKey: key}
}

// The reference's golden envelope, byte for byte.
func TestAttachmentGoldenEnvelope(t *testing.T) {
	t.Parallel()
	m := withFile(msg("1", RoleUser, "Check this file"), file("test.txt", "file-key-1"))
	r := mustBuild(t, []Message{m}, Options{AttachmentResolver: MapResolver{"file-key-1": "File content here"}})
	want := "Check this file\n\n<ATTACHMENT_FILE>\n<FILE_INDEX>1</FILE_INDEX>\n<FILE_NAME>test.txt</FILE_NAME>\n<FILE_KEY>file-key-1</FILE_KEY>\n<FILE_LINES>1</FILE_LINES>\n<FILE_SIZE>17 bytes</FILE_SIZE>\n<FILE_CONTENT>\nFile content here\n</FILE_CONTENT>\n</ATTACHMENT_FILE>\n"
	if got := firstText(r.Messages[0]); got != want {
		t.Errorf("envelope:\n%q\nwant\n%q", got, want)
	}
	if a := r.Report.Attachments; len(a) != 1 || a[0].Status != AttachmentInlined || a[0].Index != 1 {
		t.Errorf("report %+v", a)
	}
}

func TestAttachmentSeedCases(t *testing.T) {
	t.Parallel()
	res := MapResolver{
		"k-doc":  "Design notes\nsecond line",
		"k-link": "Page body of the link",
		"k-600":  strings.TrimSuffix(strings.Repeat("line\n", 600), "\n"),
		"k-b":    "second file",
	}
	t.Run("content and name", func(t *testing.T) {
		t.Parallel()
		r := mustBuild(t, []Message{withFile(msg("1", RoleUser, "see"), file("notes.md", "k-doc"))}, Options{AttachmentResolver: res})
		got := firstText(r.Messages[0])
		if !strings.Contains(got, "Design notes\nsecond line") || !strings.Contains(got, "<FILE_NAME>notes.md</FILE_NAME>") {
			t.Errorf("text %q", got)
		}
	})
	t.Run("link content", func(t *testing.T) {
		t.Parallel()
		m := msg("1", RoleUser, "read")
		m.Links = []MessageLink{{ID: "l1", URL: "https://example.com/a", Title: "Example A", StorageKey: "k-link"}}
		r := mustBuild(t, []Message{m}, Options{AttachmentResolver: res})
		got := firstText(r.Messages[0])
		if !strings.Contains(got, "Page body of the link") || !strings.Contains(got, "<FILE_NAME>Example A</FILE_NAME>") {
			t.Errorf("text %q", got)
		}
	})
	t.Run("missing leaves the text unchanged", func(t *testing.T) {
		t.Parallel()
		r := mustBuild(t, []Message{withFile(msg("1", RoleUser, "see"), file("gone.txt", "k-gone"))}, Options{AttachmentResolver: res})
		if got := firstText(r.Messages[0]); got != "see" {
			t.Errorf("text %q", got)
		}
		if a := r.Report.Attachments; len(a) != 1 || a[0].Status != AttachmentMissing || a[0].Index != 0 {
			t.Errorf("report %+v", a)
		}
	})
	t.Run("600 lines with tool use", func(t *testing.T) {
		t.Parallel()
		r := mustBuild(t, []Message{withFile(msg("1", RoleUser, "see"), file("big.log", "k-600"))},
			Options{AttachmentResolver: res, ModelSupportToolUseForFile: true})
		got := firstText(r.Messages[0])
		wantNote := "<TRUNCATED>Content truncated. Showing first 100 of 600 lines. Use read_file or search_file_content tool with FILE_KEY=\"k-600\" to read more content.</TRUNCATED>\n</ATTACHMENT_FILE>\n"
		if !strings.HasSuffix(got, wantNote) {
			t.Errorf("no TRUNCATED note: %q", got[max(0, len(got)-300):])
		}
		if n := strings.Count(got, "line\n"); n != 100 {
			t.Errorf("%d lines inlined, want 100", n)
		}
		if !strings.Contains(got, "<FILE_LINES>600</FILE_LINES>") {
			t.Error("FILE_LINES not 600")
		}
		if r.Report.Attachments[0].Status != AttachmentTruncated {
			t.Errorf("status %s", r.Report.Attachments[0].Status)
		}
	})
	t.Run("600 lines without tool use", func(t *testing.T) {
		t.Parallel()
		r := mustBuild(t, []Message{withFile(msg("1", RoleUser, "see"), file("big.log", "k-600"))}, Options{AttachmentResolver: res})
		if got := firstText(r.Messages[0]); strings.Contains(got, "TRUNCATED") || strings.Count(got, "line") != 600 {
			t.Error("content truncated without tool use")
		}
	})
	t.Run("indexes for two files and a link", func(t *testing.T) {
		t.Parallel()
		m := withFile(msg("1", RoleUser, "all"), file("a.md", "k-doc"), file("b.txt", "k-b"))
		m.Links = []MessageLink{{ID: "l", URL: "https://example.com", Title: "L", StorageKey: "k-link"}}
		r := mustBuild(t, []Message{m}, Options{AttachmentResolver: res})
		got := firstText(r.Messages[0])
		for i, name := range []string{"a.md", "b.txt", "L"} {
			want := "<FILE_INDEX>" + itoa(i+1) + "</FILE_INDEX>\n<FILE_NAME>" + name + "</FILE_NAME>"
			if !strings.Contains(got, want) {
				t.Errorf("missing %q", want)
			}
		}
	})
	t.Run("a missing file uses no index", func(t *testing.T) {
		t.Parallel()
		m := withFile(msg("1", RoleUser, "all"), file("gone", "k-none"), file("b.txt", "k-b"))
		r := mustBuild(t, []Message{m}, Options{AttachmentResolver: res})
		if !strings.Contains(firstText(r.Messages[0]), "<FILE_INDEX>1</FILE_INDEX>\n<FILE_NAME>b.txt") {
			t.Error("second file not at index 1")
		}
	})
	t.Run("input unchanged", func(t *testing.T) {
		t.Parallel()
		msgs := []Message{withFile(msg("1", RoleUser, "see"), file("notes.md", "k-doc")), toolMsg("2", `{"x":1}`), user("3")}
		before := snapshot(t, msgs)
		mustBuild(t, msgs, Options{AttachmentResolver: res, ToolCleanupMode: CleanupStubOldResults, KeepToolCallRounds: Rounds(0)})
		if after := snapshot(t, msgs); after != before {
			t.Errorf("input changed:\n%s\n%s", before, after)
		}
	})
}

func TestLocalPathAndRetrievalBlocks(t *testing.T) {
	t.Parallel()
	local := MessageFile{ID: "f1", Name: "report.pdf", FileType: "application/pdf", LocalPath: "/home/u/report.pdf"}
	rag := MessageFile{ID: "f2", Name: "manual.pdf", FileType: "application/pdf", StorageKey: "k-manual",
		RagMode: RagModeSessionRetrieval, SessionAttachmentID: "sa-9", SessionAttachmentStatus: "ready",
		SessionAttachmentBlockedReason: "too large"}
	m := withFile(msg("1", RoleUser, "Look"), local, rag)
	calls := &countingResolver{inner: MapResolver{}}
	r := mustBuild(t, []Message{m}, Options{AttachmentResolver: calls, ModelSupportToolUseForFile: true})
	golden(t, "local_and_retrieval.txt", firstText(r.Messages[0]))
	if n := calls.calls.Load(); n != 0 {
		t.Errorf("resolver called %d times for retrieval and local files", n)
	}
	// Without tool use the local file gets no block.
	r = mustBuild(t, []Message{withFile(msg("1", RoleUser, "Look"), local)}, Options{AttachmentResolver: calls})
	if got := firstText(r.Messages[0]); got != "Look" {
		t.Errorf("text %q", got)
	}
}

func TestSandboxBlocks(t *testing.T) {
	t.Parallel()
	m := withFile(msg("1", RoleUser, "Process these"),
		MessageFile{ID: "f1", Name: "data.xlsx", FileType: "x", StorageKey: "file-key-1", RawStorageKey: "file-key-raw", ByteLength: 1280},
		MessageFile{ID: "f2", Name: `C:\docs\notes.md`, FileType: "text/markdown", StorageKey: "raw-a", ByteLength: 512},
		MessageFile{ID: "f3", Name: "scan<1>.pdf", FileType: "application/pdf", StorageKey: "raw-b", ParserType: "sandbox-raw", ByteLength: 3 << 20},
		MessageFile{ID: "f4", Name: "..", FileType: "x", RagMode: RagModeSessionRetrieval, SessionAttachmentID: "s1", SessionAttachmentIndexStatus: "blocked", SessionAttachmentBlockedReason: "quota & limits"},
	)
	m.Links = []MessageLink{{ID: "l", URL: "https://example.com", Title: "ignored in sandbox", StorageKey: "k"}}
	calls := &countingResolver{inner: MapResolver{"k": "x"}}
	r := mustBuild(t, []Message{m, user("2")}, Options{AttachmentResolver: calls, SandboxMode: true})
	golden(t, "sandbox.txt", firstText(r.Messages[0]))
	if n := calls.calls.Load(); n != 0 {
		t.Errorf("resolver called %d times in sandbox mode", n)
	}
	got := firstText(r.Messages[0])
	for _, want := range []string{
		"<SANDBOX_PATH>attachments/55b9978a676d/data.xlsx</SANDBOX_PATH>",
		"<PARSED_SANDBOX_PATH>attachments/55b9978a676d/data.xlsx_parsed.txt</PARSED_SANDBOX_PATH>",
		"<SANDBOX_PATH>attachments/2153636f26f9/notes.md</SANDBOX_PATH>",
		"<FILE_SIZE>1.3KB</FILE_SIZE>",
		"<FILE_NAME>scan&lt;1&gt;.pdf</FILE_NAME>",
		"<FILE_KEY>session-attachment:s1</FILE_KEY>",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q", want)
		}
	}
	if strings.Contains(got, "raw-b/scan") || strings.Contains(got, "2253650229f9/scan&lt;1&gt;.pdf_parsed") {
		t.Error("sandbox-raw file got a parsed path")
	}
}

func TestFNVCheckValues(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"file-key-raw": "55b9978a676d",
		"raw-a":        "2153636f26f9",
		"raw-b":        "2253650229f9",
	} {
		if got := fnv1a32x2(in); got != want {
			t.Errorf("fnv(%q) = %s, want %s", in, got, want)
		}
	}
	// The identity is rawStorageKey, then storageKey, then id.
	for _, tt := range []struct {
		f    MessageFile
		want string
	}{
		{MessageFile{Name: "a.txt", RawStorageKey: "file-key-raw", StorageKey: "raw-a", ID: "raw-b"}, "attachments/55b9978a676d/a.txt"},
		{MessageFile{Name: "a.txt", StorageKey: "raw-a", ID: "raw-b"}, "attachments/2153636f26f9/a.txt"},
		{MessageFile{Name: "a.txt", ID: "raw-b"}, "attachments/2253650229f9/a.txt"},
		{MessageFile{Name: " dir/x\x01y.txt "}, "x_y.txt"},
		{MessageFile{Name: "   "}, "file"},
		{MessageFile{Name: "a/.."}, "file"},
	} {
		if got := SandboxPath(tt.f); got != tt.want {
			t.Errorf("SandboxPath(%+v) = %q, want %q", tt.f, got, tt.want)
		}
	}
}

func TestFormatFileSize(t *testing.T) {
	t.Parallel()
	for in, want := range map[float64]string{
		0: "unknown", 1: "1B", 1023: "1023B", 1024: "1.0KB", 1280: "1.3KB", 1331: "1.3KB", 1536: "1.5KB",
		1126: "1.1KB", 1024*1024 - 1: "1024.0KB", 1 << 20: "1.0MB", 5 << 20: "5.0MB", 1310720: "1.3MB",
	} {
		if got := formatFileSize(in); got != want {
			t.Errorf("formatFileSize(%v) = %q, want %q", in, got, want)
		}
	}
}

// countingResolver counts calls and the reads in flight.
type countingResolver struct {
	inner    AttachmentResolver
	calls    atomic.Int64
	inFlight atomic.Int64
	peak     atomic.Int64
	gate     chan struct{}
	mu       sync.Mutex
}

func (c *countingResolver) Read(ctx context.Context, key string) (string, error) {
	c.calls.Add(1)
	n := c.inFlight.Add(1)
	defer c.inFlight.Add(-1)
	c.mu.Lock()
	if n > c.peak.Load() {
		c.peak.Store(n)
	}
	c.mu.Unlock()
	if c.gate != nil {
		select {
		case <-c.gate:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	return c.inner.Read(ctx, key)
}

func TestReadConcurrencyAndErrors(t *testing.T) {
	t.Parallel()
	inner := MapResolver{}
	var files []MessageFile
	for i := range 20 {
		key := "k" + itoa(i)
		inner[key] = "content " + key
		files = append(files, file(key+".txt", key))
	}
	files = append(files, file("dup.txt", "k0")) // read once
	gate := make(chan struct{})
	res := &countingResolver{inner: inner, gate: gate}
	go func() {
		for range 20 {
			gate <- struct{}{}
		}
	}()
	r := mustBuild(t, []Message{withFile(msg("1", RoleUser, "x"), files...)}, Options{AttachmentResolver: res, ReadConcurrency: 3})
	if p := res.peak.Load(); p > 3 {
		t.Errorf("peak reads in flight %d > 3", p)
	}
	if n := res.calls.Load(); n != 20 {
		t.Errorf("%d reads, want 20 (one per key)", n)
	}
	if n := strings.Count(firstText(r.Messages[0]), "<ATTACHMENT_FILE>"); n != 21 {
		t.Errorf("%d blocks, want 21", n)
	}

	// A failing read is reported, not swallowed.
	fail := resolverFunc(func(ctx context.Context, key string) (string, error) {
		if key == "bad" {
			return "", errors.New("disk on fire")
		}
		return "", nil
	})
	r = mustBuild(t, []Message{withFile(msg("1", RoleUser, "x"), file("a", "bad"), file("b", "empty"))}, Options{AttachmentResolver: fail})
	a := r.Report.Attachments
	if len(a) != 2 || a[0].Status != AttachmentError || a[0].Error != "disk on fire" || a[1].Status != AttachmentEmpty {
		t.Errorf("report %+v", a)
	}
	// No resolver: every attachment is missing.
	r = mustBuild(t, []Message{withFile(msg("1", RoleUser, "x"), file("a", "k"))}, Options{})
	if r.Report.Attachments[0].Status != AttachmentMissing {
		t.Errorf("report %+v", r.Report.Attachments)
	}
}

type resolverFunc func(ctx context.Context, key string) (string, error)

func (f resolverFunc) Read(ctx context.Context, key string) (string, error) { return f(ctx, key) }

func TestDirResolver(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "file-key-1"), []byte("File content here"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "k2"), []byte("nested"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "big"), []byte(strings.Repeat("x", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	d, err := NewDirResolver(dir, 2, 50)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx := context.Background()
	if s, err := d.Read(ctx, "file-key-1"); err != nil || s != "File content here" {
		t.Errorf("read: %q, %v", s, err)
	}
	if s, err := d.Read(ctx, "sub/k2"); err != nil || s != "nested" {
		t.Errorf("nested read: %q, %v", s, err)
	}
	if _, err := d.Read(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing: %v, want ErrNotFound", err)
	}
	for _, key := range []string{"../secret", "/etc/passwd", `sub\k2`, "", "sub/../../x", "link"} {
		if s, err := d.Read(ctx, key); err == nil || errors.Is(err, ErrNotFound) && key != "link" {
			t.Errorf("key %q: %q, %v; want refusal", key, s, err)
		}
	}
	if _, err := d.Read(ctx, "big"); err == nil || !strings.Contains(err.Error(), "larger than 50 bytes") {
		t.Errorf("big: %v", err)
	}
	if _, err := NewDirResolver(filepath.Join(dir, "missing-dir"), 0, 0); err == nil {
		t.Error("missing dir accepted")
	}
}

// TestSandboxTextExtensions: a text file (file-extensions.ts, textExts, the
// version with rounds.ts and context-pressure.ts) gets no
// PARSED_SANDBOX_PATH; any other file with a storage key gets one.
func TestSandboxTextExtensions(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		parsed bool
	}{
		{"notes.txt", false},
		{"main.GO", false},
		{"paper.typ", false},
		{"fix.patch", false},
		{"change.diff", false},
		{"mail.gitpatch", false},
		{".gitignore", false},
		{"repo.GITIGNORE", false},
		{"report.pdf", true},
		{"sheet.xlsx", true},
		{"archive.patches", true},
		{"README", true},
		{"x.\u0130NI", true}, // JavaScript lower-cases U+0130 to "i\u0307"
	} {
		if got := !isTextFilePath(tt.name); got != tt.parsed {
			t.Errorf("%s: parsed path %v, want %v", tt.name, got, tt.parsed)
		}
		m := withFile(msg("1", RoleUser, "see"), MessageFile{ID: "f", Name: tt.name, FileType: "x", StorageKey: "k"})
		r := mustBuild(t, []Message{m}, Options{SandboxMode: true})
		if got := strings.Contains(firstText(r.Messages[0]), "<PARSED_SANDBOX_PATH>"); got != tt.parsed {
			t.Errorf("%s: block has PARSED_SANDBOX_PATH %v, want %v", tt.name, got, tt.parsed)
		}
	}
}
