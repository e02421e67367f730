package observe

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"

	"github.com/ctxaudit/ctx/measure"
)

// DefaultMaxBody is the largest request body the proxy attributes; a
// larger one is forwarded (or answered) all the same, and recorded by its
// size alone.
const DefaultMaxBody = 32 << 20

// shutdownGrace is how long Serve waits for the requests under way once
// its context is done.
const shutdownGrace = 5 * time.Second

// keptResponse bounds what the proxy keeps of each response, at its start
// and at its end, to read the provider's usage from.
const keptResponse = 1 << 20

// Options configure a [Proxy].
type Options struct {
	// Agent is the agent served ("" for another program).
	Agent Agent
	// Mock makes the proxy answer every request itself, in the request's
	// wire format, instead of forwarding it.
	Mock bool
	// Upstream is the endpoint requests are forwarded to (pass-through).
	Upstream string
	// Prefix is the part of the request paths that stands for the
	// upstream's own path: the proxy replaces it with the upstream's
	// path (Codex is given the proxy's address with /v1, which its
	// requests then start with).
	Prefix string
	// Files are the files looked for in the requests; nil finds only
	// those the agents' headers name... and reads nothing.
	Files *Files
	// Estimator counts the tokens of the segments; nil is chars/4.
	Estimator measure.Estimator
	// MaxBody bounds the bodies attributed, a safety cap: 0 (or less) is
	// DefaultMaxBody; it cannot be turned off.
	MaxBody int64
	// Transport sends the forwarded requests; nil is a clone of
	// http.DefaultTransport.
	Transport http.RoundTripper
}

// Proxy is an http.Handler that records every request an agent sends it,
// and forwards it or answers it.
type Proxy struct {
	o    Options
	up   *url.URL
	rp   *httputil.ReverseProxy
	mu   sync.Mutex
	seq  int
	reqs []*Request
	wg   sync.WaitGroup
}

// New returns a proxy with o.
func New(o Options) (*Proxy, error) {
	if o.Estimator == nil {
		o.Estimator = measure.Default()
	}
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	p := &Proxy{o: o}
	if o.Mock {
		return p, nil
	}
	up, err := url.Parse(o.Upstream)
	if err != nil || up.Scheme != "http" && up.Scheme != "https" || up.Host == "" {
		return nil, fmt.Errorf("upstream %q: not an http or https URL", o.Upstream)
	}
	p.up = up
	tr := o.Transport
	if tr == nil {
		// the request and its answer pass unchanged: no Accept-Encoding
		// of the transport's own, no answer decompressed on the way
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.DisableCompression = true
		tr = t
	}
	shown := redactURL(up.String())
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			target := *up
			target.Path = strings.TrimSuffix(up.Path, "/") + strings.TrimPrefix(pr.In.URL.Path, o.Prefix)
			target.RawPath = ""
			target.RawQuery = mergeQuery(pr.In.URL.RawQuery, up.RawQuery)
			pr.Out.URL = &target
			pr.Out.Host = up.Host
		},
		Transport:     tr,
		ErrorLog:      log.New(io.Discard, "", 0),
		FlushInterval: -1, // every write reaches the agent at once: server-sent events stream
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			// the reason without the URL, which may hold a key
			why := err.Error()
			if ue := (*url.Error)(nil); errors.As(err, &ue) {
				why = ue.Err.Error()
			}
			if req := requestOf(r); req != nil {
				p.note(req, "forwarding failed: "+why)
			}
			if errors.Is(err, context.Canceled) {
				return
			}
			http.Error(w, "ctx observe: the upstream "+shown+" failed: "+why, http.StatusBadGateway)
		},
		ModifyResponse: func(resp *http.Response) error {
			if req := requestOf(resp.Request); req != nil {
				p.setStatus(req, resp.StatusCode)
				resp.Body = &keeper{ReadCloser: resp.Body, done: func(head, tail []byte, total int64) {
					p.usage(req, resp.Header.Get("Content-Encoding"), head, tail, total)
				}}
			}
			return nil
		},
	}
	return p, nil
}

type requestKey struct{}

func requestOf(r *http.Request) *Request {
	if r == nil {
		return nil
	}
	req, _ := r.Context().Value(requestKey{}).(*Request)
	return req
}

// mergeQuery is the query of a forwarded request: the agent's own, and
// the parameters of the upstream's URL (Azure's api-version) that it does
// not set itself.
func mergeQuery(in, up string) string {
	if up == "" {
		return in
	}
	has := map[string]bool{}
	split := func(q string) []string {
		return strings.FieldsFunc(q, func(r rune) bool { return r == '&' || r == ';' })
	}
	for _, part := range split(in) {
		name, _, _ := strings.Cut(part, "=")
		has[name] = true
	}
	out := in
	for _, part := range split(up) {
		if name, _, _ := strings.Cut(part, "="); !has[name] {
			if out != "" {
				out += "&"
			}
			out += part
		}
	}
	return out
}

// ServeHTTP records the request and forwards it (or answers it, in mock
// mode). The request is attributed after its response, never in its way.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// counted before anything else, so that Requests waits for it
	p.wg.Add(1)
	p.mu.Lock()
	p.seq++
	req := &Request{Seq: p.seq, Method: r.Method, Path: cleanPath(r.URL), API: apiOf(r.URL.Path),
		UserAgent: r.Header.Get("User-Agent"), Client: client(r.Header.Get("User-Agent"))}
	p.reqs = append(p.reqs, req)
	p.mu.Unlock()

	body, err := io.ReadAll(io.LimitReader(r.Body, p.o.MaxBody+1))
	if err != nil {
		p.note(req, "reading the request failed: "+err.Error())
		p.wg.Done()
		http.Error(w, "ctx observe: reading the request failed", http.StatusBadRequest)
		return
	}
	whole := int64(len(body)) <= p.o.MaxBody
	var rest *counter // what follows a body over the limit, counted as it passes
	if whole {
		r.Body = io.NopCloser(bytes.NewReader(body))
	} else {
		rest = &counter{r: r.Body}
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), rest), r.Body}
	}
	// the request is attributed once its response has reached the agent,
	// so that the attribution never delays it
	encoding, length := r.Header.Get("Content-Encoding"), r.ContentLength
	defer func() { go p.attributeLater(req, encoding, body, whole, length, rest) }()
	if p.o.Mock {
		status := p.mock(w, r, body)
		p.setStatus(req, status)
		if rest != nil {
			// the rest of a body over the limit, read to know its size
			_, _ = io.CopyN(io.Discard, r.Body, maxDrained)
		}
		return
	}
	p.rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestKey{}, req)))
}

// maxDrained bounds what the mock reads of a body over the limit to know
// its size.
const maxDrained = 1 << 30

// counter counts the bytes read from r, and whether it was read to its
// end (in the transport's goroutine; read once the response is out).
type counter struct {
	r   io.Reader
	n   atomic.Int64
	eof atomic.Bool
}

func (c *counter) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n.Add(int64(n))
	if err == io.EOF {
		c.eof.Store(true)
	}
	return n, err
}

// moreThan starts the note of a body over the limit whose size is not
// known: "a body of more than N bytes, ...".
const moreThan = "a body of more than "

// attributeLater attributes a request whose response is out (in a
// goroutine of its own: the response ends when the handler returns).
func (p *Proxy) attributeLater(req *Request, encoding string, body []byte, whole bool, length int64, rest *counter) {
	defer p.wg.Done()
	defer func() {
		// a bug of the attribution never ends the agent's session
		if v := recover(); v != nil {
			p.note(req, fmt.Sprintf("attribution failed (a bug in ctx): %v", v))
		}
	}()
	p.attribute(req, encoding, body, whole, length, rest)
}

// attribute cuts the body into segments.
func (p *Proxy) attribute(req *Request, encoding string, body []byte, whole bool, length int64, rest *counter) {
	var notes []string
	if !whole {
		if length < 0 && rest != nil {
			// sent chunked: its size is what was read of it, all of it
			// when it was read to its end
			length = int64(len(body)) + rest.n.Load()
			if !rest.eof.Load() {
				length = -length
			}
		}
		note := fmt.Sprintf("a body of %d bytes, over the %d the proxy attributes: recorded by its size", length, p.o.MaxBody)
		if length < 0 {
			length = -length
			note = fmt.Sprintf(moreThan+"%d bytes (not read to its end), over the %d the proxy attributes: recorded by what was read of it", length-1, p.o.MaxBody)
		}
		notes = append(notes, note)
		p.mu.Lock()
		req.Bytes = int(max(length, int64(len(body))))
		req.Segments = []Segment{{Kind: KindFraming, Bytes: req.Bytes}}
		req.Notes = append(req.Notes, notes...)
		p.mu.Unlock()
		return
	}
	text := body
	if encoding != "" && encoding != "identity" {
		d, err := decompress(encoding, body, p.o.MaxBody)
		if err != nil {
			notes = append(notes, fmt.Sprintf("a body of %d bytes in %s that could not be read: %v", len(body), encoding, err))
			text = nil
		} else {
			notes = append(notes, fmt.Sprintf("sent in %s, %d bytes; attributed as the %d bytes it holds", encoding, len(body), len(d)))
			text = d
		}
	}
	var segs []Segment
	var model string
	var stream bool
	if text == nil {
		segs = []Segment{{Kind: KindFraming, Bytes: len(body)}}
	} else {
		var more []string
		segs, model, stream, more = Attribute(p.o.Agent, req.Path, text, p.o.Files, p.o.Estimator)
		notes = append(notes, more...)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	req.Bytes = len(text)
	if text == nil {
		req.Bytes = len(body)
	}
	req.Segments, req.Model, req.Stream = segs, model, stream
	for _, s := range segs {
		req.Chars += s.Chars
		req.Tokens += s.Tokens
	}
	req.Notes = append(req.Notes, notes...)
}

// decompress reads a body sent with a Content-Encoding, up to limit bytes.
func decompress(encoding string, body []byte, limit int64) ([]byte, error) {
	var r io.Reader
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "gzip", "x-gzip":
		z, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		r = z
	case "deflate":
		// HTTP's deflate is the zlib format (RFC 9110 8.4.1.2); some
		// programs send raw DEFLATE, without zlib's header
		if z, err := zlib.NewReader(bytes.NewReader(body)); err == nil {
			r = z
		} else {
			r = flate.NewReader(bytes.NewReader(body))
		}
	case "br":
		r = brotli.NewReader(bytes.NewReader(body))
	case "zstd":
		z, err := zstd.NewReader(bytes.NewReader(body), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(limit)))
		if err != nil {
			return nil, err
		}
		defer z.Close()
		r = z
	default:
		return nil, fmt.Errorf("unknown encoding %q", encoding)
	}
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("more than %d bytes", limit)
	}
	return b, nil
}

func (p *Proxy) note(req *Request, s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	req.Notes = append(req.Notes, s)
}

func (p *Proxy) setStatus(req *Request, status int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	req.Status = status
}

// usage reads the provider's count of input tokens from what was kept of
// a response.
func (p *Proxy) usage(req *Request, encoding string, head, tail []byte, total int64) {
	var n *int
	if encoding != "" && encoding != "identity" {
		if int64(len(head)) == total { // whole: the stream can be read
			if d, err := decompress(encoding, head, 4*keptResponse); err == nil {
				n = inputTokens(d)
			}
		}
	} else {
		n = inputTokens(head)
		if t := inputTokens(tail); t != nil {
			n = t
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	req.InputTokens = n
}

// keeper passes a response through and keeps its first and last
// keptResponse bytes; done gets them once the body is read to its end or
// closed.
type keeper struct {
	io.ReadCloser
	head, tail []byte
	total      int64
	once       sync.Once
	done       func(head, tail []byte, total int64)
}

func (k *keeper) Read(b []byte) (int, error) {
	n, err := k.ReadCloser.Read(b)
	if n > 0 {
		k.total += int64(n)
		chunk := b[:n]
		if room := keptResponse - len(k.head); room > 0 {
			take := min(room, len(chunk))
			k.head = append(k.head, chunk[:take]...)
		}
		k.tail = append(k.tail, chunk...)
		if len(k.tail) > 2*keptResponse {
			k.tail = append(k.tail[:0], k.tail[len(k.tail)-keptResponse:]...)
		}
	}
	if err != nil {
		k.finish()
	}
	return n, err
}

func (k *keeper) Close() error {
	k.finish()
	return k.ReadCloser.Close()
}

func (k *keeper) finish() {
	k.once.Do(func() {
		tail := k.tail
		if len(tail) > keptResponse {
			tail = tail[len(tail)-keptResponse:]
		}
		k.done(k.head, tail, k.total)
	})
}

// Requests waits for the requests received so far to be attributed and
// returns copies of them, in the order they arrived.
func (p *Proxy) Requests() []Request { return p.RequestsUntil(nil) }

// RequestsUntil is Requests, except that a value on stop ends the wait:
// the requests whose attribution had not ended are returned as they are,
// with a note saying so.
func (p *Proxy) RequestsUntil(stop <-chan os.Signal) []Request {
	done := make(chan struct{})
	go func() { p.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-stop:
		p.mu.Lock()
		for _, r := range p.reqs {
			if r.Segments == nil {
				r.Notes = append(r.Notes, "interrupted before its attribution ended")
			}
		}
		p.mu.Unlock()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Request, len(p.reqs))
	for i, r := range p.reqs {
		out[i] = *r
		out[i].Segments = append([]Segment(nil), r.Segments...)
		out[i].Notes = append([]string(nil), r.Notes...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}

// Listen listens on addr, which must be a loopback address ("" is
// 127.0.0.1 on a port the system chooses): the proxy never serves another
// machine.
func Listen(ctx context.Context, addr string) (net.Listener, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("listen address %q: %w", addr, err)
	}
	if host == "localhost" {
		host = "127.0.0.1"
		addr = net.JoinHostPort(host, addr[strings.LastIndexByte(addr, ':')+1:])
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("listen address %q: not a loopback address (127.0.0.1, ::1); the proxy serves this machine only", addr)
	}
	var lc net.ListenConfig
	return lc.Listen(ctx, "tcp", addr)
}

// Serve serves the proxy on ln until ctx is done, then closes it and waits
// for the requests under way to end.
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ErrorLog: log.New(io.Discard, "", 0)}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// the requests under way end, or are cut after a grace
	grace, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if srv.Shutdown(grace) != nil {
		srv.Close()
	}
	<-errc
	return nil
}
