// Package mcpserver serves ctx over the Model Context Protocol: an agent
// asks ctx itself what it is given and what it can afford (`ctx mcp`).
//
// [New] builds an *mcp.Server (github.com/modelcontextprotocol/go-sdk) for
// one project directory, with five read-only tools and two resources, each
// a call into the library pipeline that the ctx commands use, never a copy
// of it:
//
//   - audit: the audit of the project, the [audit.Document] that
//     `ctx audit --format json` prints, byte for byte;
//   - render: the rendered context (or a stored manifest's), redacted
//     (see "Redaction"), cut at max_tokens at a token boundary
//     ([measure.TokenPrefix]), with notes;
//   - pack: files in a view under a token budget, the markdown that
//     `ctx aggregate --stdout --no-history --redact` prints and the rows
//     of `ctx aggregate --format json --redact` (without their text);
//   - verify: a stored manifest against the files now, the JSON of
//     `ctx verify --format json`;
//   - stats: tokens by directory and file, or the top N files, or the
//     token tree, the JSON of `ctx stats --format json`;
//   - resources ctx://manifest (what `ctx manifest --redact` prints) and
//     ctx://schemas/manifest.v1.schema.json ([schemas.ManifestV1]).
//
// Every call loads the project and its ctx.toml again
// ([config.LoadProject]), so a call sees the files and the configuration
// as the command would at that moment.
//
// # Confinement
//
// Paths given to tools (a directory, a stored manifest, the paths and globs
// of pack and stats) must lie in the project directory the server was
// started for: an absolute path outside it, a ".." that leaves it, or a
// link whose target lies outside it is refused with a tool error. Files
// that ctx itself finds through ctx.toml and discovery (the shared
// instruction file, the user's allow_outside directories) are read as the
// commands read them; a tool's own paths never widen that, and nothing
// from tool input adds an allow_outside directory. A stored manifest is
// input too: verify refuses one that records a file outside the project
// which ctx does not find there itself.
//
// # Redaction
//
// The model a client talks to is a third party: render, pack and
// ctx://manifest replace every credential the project's scanner finds
// ([config.Config.Scanner]: gitleaks' rules and the allowlist of
// [secrets] in ctx.toml) with "[REDACTED:rule]", through the library's
// own redaction (manifest.Options.Redact, aggregate.Options.Redact,
// [render.Redact] for a stored manifest), whatever redact in ctx.toml
// says. The notes of render and pack say how many credentials were
// replaced and where (path:line and rule, never the value), or that none
// was found, and name any content the text holds from outside the
// project directory (a shared instruction file, a file above the project,
// a file of the user's allow_outside). A call may ask for redact: false
// only on a server started with [Options.AllowUnredacted] (`ctx mcp
// --allow-unredacted`); elsewhere it is a tool error. The notes of an
// unredacted text say where each credential it holds is. The message of
// an error result or a protocol error has its credentials redacted too
// (an error may quote a value of ctx.toml), as the commands' stderr does.
//
// # Input
//
// [Serve] answers every line that is no message it can take with a
// JSON-RPC error and reads on, where the SDK would end the session (see
// [Serve], [MaxFrameBytes], [MaxFrameDepth]).
//
// # Limits
//
// Nothing is cut silently. Text results (render) are cut at max_tokens
// (default [DefaultMaxTokens]; 0 is no limit) at a token boundary, and the
// result says so in a note. pack's max_tokens is the token budget of
// `ctx aggregate --max-tokens` (default: max_tokens of [files], else
// [DefaultMaxTokens]), which degrades and omits files and lists them.
// Whatever the tokens, a text longer than [MaxTextBytes] is cut at a line
// end, with a note. JSON documents (audit, verify, stats) are never cut,
// since a cut document is no document: one over max_bytes (default, and
// 0, [DefaultMaxBytes]; at most [MaxResultBytes]) is a tool error that
// gives its size and how to ask for less. No result goes out larger than
// [MaxResultBytes] as sent: such a result is a tool error too, and a
// ctx://manifest that large is an error of resources/read (a resource has
// no error result) that gives its size.
//
// Errors in the input (a bad view name, a path outside the project, a bad
// ctx.toml) are tool results with IsError set and a message, not protocol
// errors, so the model sees them. The package never prints: it writes only
// to the transport it is given.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxaudit/ctx/config"
	"github.com/ctxaudit/ctx/internal/version"
	"github.com/ctxaudit/ctx/secrets"
)

// Limits of the results (see the package documentation, "Limits").
const (
	// DefaultMaxTokens bounds the text of render and the token budget of
	// pack when the call sets none (and, for pack, ctx.toml neither). It
	// is below the 25,000 tokens that Claude Code accepts from one tool
	// call by default.
	DefaultMaxTokens = 20000
	// DefaultMaxBytes bounds the JSON documents of audit, verify and stats
	// when the call sets none.
	DefaultMaxBytes = 100000
	// MaxTextBytes bounds the text of render and the markdown of pack
	// whatever max_tokens says (0 included): a longer text is cut at the
	// last line end before it, with a note.
	MaxTextBytes = 1 << 20
	// MaxResultBytes bounds a whole result as it is sent (text blocks and
	// structured output, JSON-encoded): a larger one is refused with a tool
	// error, since clients drop larger messages (the Go SDK reads lines of
	// at most 16 MiB). max_bytes of the JSON tools cannot go above it.
	MaxResultBytes = 8 << 20
)

// Options say which project the server serves.
type Options struct {
	// Dir is the project directory; "" is the working directory. Tool
	// paths are confined to it.
	Dir string
	// Config is the configuration file; "" is Dir/ctx.toml when it exists
	// (as --config of the commands).
	Config string
	// Home, Getenv and UserConfigDir are those of config.ProjectOptions;
	// the zero values are the process's.
	Home          string
	Getenv        func(string) string
	UserConfigDir string
	// Version is the server version announced to clients; "" is ctx's.
	Version string
	// Logger receives the SDK's log; nil discards it.
	Logger *slog.Logger
	// Cache keeps the views and token counts of [files] between calls
	// (aggregate.Options.Cache; package cache keeps one in a directory);
	// nil is none. The results are the same bytes with or without it.
	Cache aggregate.Cache
	// AllowUnredacted lets a call of render or pack ask for redact: false
	// (`ctx mcp --allow-unredacted`); without it such a call is refused
	// with a tool error. See "Redaction".
	AllowUnredacted bool
}

// withCache gives the [files] of o the server's cache.
func (s *server) withCache(o *manifest.Options) {
	if o.Files != nil && s.o.Cache != nil {
		o.Files.Cache = s.o.Cache
	}
}

// server holds what every handler needs.
type server struct {
	o       Options
	dir     string          // the project directory, absolute with links resolved
	scanner secrets.Scanner // of ctx.toml as the server started: for error messages
}

// New checks the project (its directory and ctx.toml load as they would
// for a command) and returns the MCP server for it, with its tools and
// resources.
func New(o Options) (*mcp.Server, error) {
	s := &server{o: o}
	p, err := s.loadAt(o.Dir, o.Config)
	if err != nil {
		return nil, err
	}
	if filepath.Dir(p.Dir) == p.Dir {
		// an agent that starts servers in / (as Cursor does) would get a
		// server whose tools may read every file of the machine
		return nil, fmt.Errorf("project directory %s: the root of the file system is no project; name one with -C DIR", p.Dir)
	}
	s.dir = p.Dir
	if s.scanner, err = p.Config.RedactScanner(); err != nil {
		return nil, err
	}
	// the project is found again by its resolved path on every call
	s.o.Dir = p.Dir
	v := o.Version
	if v == "" {
		v = version.Version
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "ctx", Title: "ctx", Version: v}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       logger,
	})
	s.addTools(srv)
	s.addResources(srv)
	srv.AddReceivingMiddleware(endWithServe, s.withoutSecrets)
	return srv, nil
}

// instructions tell the model what the server is for.
const instructions = "ctx records exactly what an AI agent is given as context. " +
	"audit: the instruction sources, their tokens, decisions and findings. " +
	"render: the context text. pack: project files in a view under a token budget. " +
	"verify: a stored manifest against the files now. stats: where the tokens are. " +
	"Paths are relative to the project directory and cannot leave it."

// Serve runs srv on one connection of newline-delimited JSON-RPC over in
// and out (the stdio transport of MCP, over the given streams) until the
// client closes in or ctx is done; a cancelled ctx is a normal end, and
// it cancels the calls still running (a long pack stops), so that Serve
// returns promptly.
//
// A line that is not a message the session can take does not end it: it
// is answered with a JSON-RPC error and Serve reads the next one. A line
// that is not JSON gets a parse error (-32700, id null); one longer than
// [MaxFrameBytes] (read to its end, never held whole), nested deeper
// than [MaxFrameDepth], not a JSON-RPC 2.0 message, or a batch in a
// session whose protocol version has none (every version but 2025-03-26)
// gets an invalid request (-32600). A request cancelled by
// notifications/cancelled gets no answer, and once ctx is done nothing
// more is written: the calls it cancels are not answered either.
func Serve(ctx context.Context, srv *mcp.Server, in io.Reader, out io.Writer) error {
	t := &transport{in: in, out: out, done: ctx.Done()}
	// the SDK gives handlers a context that the connection's end does not
	// cancel, and waits for them as it closes: the handlers find ctx in
	// theirs (see endWithServe)
	err := srv.Run(context.WithValue(ctx, serveKey{}, ctx), t)
	if ctx.Err() != nil {
		return nil
	}
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// serveKey is the context key of the context Serve was given.
type serveKey struct{}

// endWithServe is a receiving middleware: a request that came through
// Serve is cancelled when Serve's context is done. (The SDK does not
// cancel handlers when the connection's context is done, and its Run waits
// for them before it returns.)
func endWithServe(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if serve, ok := ctx.Value(serveKey{}).(context.Context); ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithCancel(ctx)
			defer cancel()
			defer context.AfterFunc(serve, cancel)()
		}
		return next(ctx, method, req)
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// load loads the server's project and ctx.toml, as every command does.
func (s *server) load() (*config.Project, error) { return s.loadAt(s.o.Dir, s.o.Config) }

func (s *server) loadAt(dir, file string) (*config.Project, error) {
	if dir != "" && strings.TrimSpace(dir) == "" {
		return nil, errors.New("project directory: must not be empty")
	}
	return config.LoadProject(config.ProjectOptions{Dir: dir, File: file, Home: s.o.Home, Getenv: s.o.Getenv, UserConfigDir: s.o.UserConfigDir})
}

// confine returns the absolute, cleaned path of p (relative to base unless
// absolute) after checking that it lies in the project directory, both as
// written and with every link resolved. what names p in errors.
func (s *server) confine(what, base, p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", fmt.Errorf("%s: must not be empty", what)
	}
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("%s: %q holds a NUL byte", what, p)
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(base, p)
	}
	abs = filepath.Clean(abs)
	if !within(s.dir, realPath(abs)) {
		return "", fmt.Errorf("%s: %s is outside the project directory %s (tools read only files in the project)", what, p, s.dir)
	}
	return abs, nil
}

// realPath resolves the links of the longest part of p that exists and
// appends the rest as it is.
func realPath(p string) string {
	rest := ""
	for cur := p; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// within reports whether p is dir or below it (both clean and absolute).
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	if err != nil {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// result is what a handler returns: the text blocks for the model and the
// structured output (a JSON document), nil for none.
type result struct {
	text       []string
	structured []byte
}

// handler is a tool's work on its decoded input.
type handler[In any] func(ctx context.Context, req *mcp.CallToolRequest, in In) (*result, error)

// addTool registers a read-only tool whose input schema is inferred from In
// (descriptions from the jsonschema tags; tweak adds enums and bounds) and
// whose output schema is given. The input is validated against the schema
// and decoded here; the handler's structured output is sent as it is, so
// that its keys keep the order of the command's JSON.
func addTool[In any](srv *mcp.Server, t *mcp.Tool, output string, tweak func(*jsonschema.Schema), h handler[In]) {
	in, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: input schema: %v", t.Name, err))
	}
	// an optional number is a pointer, which infers as ["null", "integer"];
	// left out is what it means, and some clients accept one type only
	for _, p := range in.Properties {
		if len(p.Types) == 2 && p.Types[0] == "null" {
			p.Type, p.Types = p.Types[1], nil
		}
	}
	if tweak != nil {
		tweak(in)
	}
	resolved, err := in.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: input schema: %v", t.Name, err))
	}
	t.InputSchema = in
	t.OutputSchema = json.RawMessage(output)
	t.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)}
	srv.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := map[string]any{}
		if len(req.Params.Arguments) > 0 && string(req.Params.Arguments) != "null" {
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
				return toolError(fmt.Errorf("arguments: not a JSON object: %v", err)), nil
			}
		}
		if err := resolved.Validate(args); err != nil {
			return toolError(argumentError(err)), nil
		}
		var v In
		if len(args) > 0 {
			if err := json.Unmarshal(req.Params.Arguments, &v); err != nil {
				return toolError(fmt.Errorf("arguments: %v", err)), nil
			}
		}
		res, err := h(ctx, req, v)
		if err != nil {
			return toolError(err), nil
		}
		out := &mcp.CallToolResult{Content: []mcp.Content{}}
		for _, t := range res.text {
			out.Content = append(out.Content, &mcp.TextContent{Text: t})
		}
		if res.structured != nil {
			out.StructuredContent = json.RawMessage(res.structured)
		}
		// the size on the wire, where the SDK's encoder escapes <, > and &
		wire, err := json.Marshal(out)
		if err != nil {
			return nil, err
		}
		if len(wire) > MaxResultBytes {
			return toolError(fmt.Errorf("the result of %s is %d bytes as sent, over the %d that one result may carry: ask for less (fewer paths, a smaller max_tokens, top N)", t.Name, len(wire), MaxResultBytes)), nil
		}
		return out, nil
	})
}

// argumentError words a schema validation error of the arguments for the
// model: "view: enum: bogus does not equal any of: [...]".
func argumentError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "validating root: ")
	if rest, ok := strings.CutPrefix(msg, "validating /properties/"); ok {
		if name, detail, ok := strings.Cut(rest, ": "); ok {
			return fmt.Errorf("%s: %s", name, boundError(detail))
		}
	}
	return fmt.Errorf("arguments: %s", msg)
}

// boundError words the validator's "minimum: 0/1 is less than 1.000000"
// (a fraction and a float) as "must be at least 1, not 0", and its
// `type: 1.5 has type "number", want "integer"` as "must be a whole
// number, not 1.5" (counts of tokens and bytes are whole numbers); other
// details are returned as they are.
func boundError(detail string) string {
	if rest, ok := strings.CutPrefix(detail, "type: "); ok {
		if got, ok := strings.CutSuffix(rest, ` has type "number", want "integer"`); ok {
			return "must be a whole number, not " + got
		}
	}
	for _, b := range []struct{ prefix, sep, want string }{
		{"minimum: ", " is less than ", "at least"},
		{"maximum: ", " is greater than ", "at most"},
	} {
		rest, ok := strings.CutPrefix(detail, b.prefix)
		if !ok {
			continue
		}
		got, bound, ok := strings.Cut(rest, b.sep)
		if !ok {
			break
		}
		r, ok1 := new(big.Rat).SetString(got)
		f, err := strconv.ParseFloat(bound, 64)
		if !ok1 || err != nil {
			break
		}
		v, _ := r.Float64()
		return fmt.Sprintf("must be %s %s, not %s", b.want, strconv.FormatFloat(f, 'f', -1, 64), strconv.FormatFloat(v, 'f', -1, 64))
	}
	return detail
}

// toolError is err as a tool result the model can read.
func toolError(err error) *mcp.CallToolResult {
	msg := err.Error()
	if errors.Is(err, context.Canceled) {
		msg = "cancelled: " + msg
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "ctx: error: " + strings.TrimPrefix(msg, "ctx: error: ")}}}
}

// maxBytes is the max_bytes of a call, a safety cap as every byte cap of
// ctx is: nil and 0 are DefaultMaxBytes, and no more than MaxResultBytes.
func maxBytes(n *int) int {
	switch {
	case n == nil || *n <= 0:
		return DefaultMaxBytes
	case *n > MaxResultBytes:
		return MaxResultBytes
	}
	return *n
}

// tokenLimit is the max_tokens or max_file_tokens of a call, when it sets
// one: a number of tokens, 0 for no limit as on the command line
// (measure.Limit.ZeroIsNone).
func tokenLimit(n *int) (measure.Limit, bool) {
	if n == nil {
		return measure.Limit{}, false
	}
	return measure.Max(int64(*n)).ZeroIsNone(), true
}

// capText cuts text at the last line end (else character boundary) before
// MaxTextBytes; the note says what was cut, "" when nothing was.
func capText(text, what string) (string, string) {
	if len(text) <= MaxTextBytes {
		return text, ""
	}
	cut := strings.LastIndexByte(text[:MaxTextBytes], '\n') + 1
	if cut == 0 {
		cut = MaxTextBytes
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
	}
	return text[:cut], fmt.Sprintf("the %s is cut at %d of %d bytes, the most one result carries (a line end before %d): ask for less", what, cut, len(text), MaxTextBytes)
}

// checkSize refuses a JSON document over max bytes; how says how to ask for
// less.
func checkSize(what string, doc []byte, max int, how string) error {
	if max > 0 && len(doc) > max {
		return fmt.Errorf("the %s is %d bytes of JSON, over max_bytes %d, and a JSON document is not cut: %s, or ask with a larger max_bytes (at most %d)", what, len(doc), max, how, MaxResultBytes)
	}
	return nil
}

func ptr[T any](v T) *T { return &v }
