package observe

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"

	"github.com/ctxaudit/ctx/internal/testwait"
	"github.com/ctxaudit/ctx/measure"
)

// received is a request as the fake upstream got it.
type received struct {
	method, path, rawQuery, host string
	header                       http.Header
	body                         []byte
}

// fakeUpstream is an upstream that records what it gets and answers with
// reply.
type fakeUpstream struct {
	srv   *httptest.Server
	mu    sync.Mutex
	got   []received
	reply func(w http.ResponseWriter, r *http.Request)
}

func newUpstream(t testing.TB, reply func(w http.ResponseWriter, r *http.Request)) *fakeUpstream {
	t.Helper()
	u := &fakeUpstream{reply: reply}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		u.mu.Lock()
		u.got = append(u.got, received{method: r.Method, path: r.URL.Path, rawQuery: r.URL.RawQuery, host: r.Host, header: r.Header.Clone(), body: body})
		u.mu.Unlock()
		u.reply(w, r)
	}))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *fakeUpstream) requests() []received {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]received(nil), u.got...)
}

// proxyServer serves a proxy of o on the loopback address.
type proxyServer struct {
	p      *Proxy
	srv    *httptest.Server
	client *http.Client
}

func newProxyServer(t testing.TB, o Options) *proxyServer {
	t.Helper()
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	// a client of its own that leaves the body as the proxy sends it
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	t.Cleanup(client.CloseIdleConnections)
	return &proxyServer{p: p, srv: srv, client: client}
}

// requests ends the serving (every request done) and returns what the
// proxy recorded.
func (s *proxyServer) requests() []Request {
	s.client.CloseIdleConnections()
	s.srv.Close()
	return s.p.Requests()
}

func (s *proxyServer) do(t testing.TB, method, path string, body []byte, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, s.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// allBytes is every byte value, and then some text.
func allBytes() []byte {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return append(b, "\r\n\x00 end"...)
}

// TestProxyPassThrough: the upstream gets the bytes the client sent, its
// headers (credentials included) and the path under its own; the client
// gets the bytes, status and headers the upstream answered.
func TestProxyPassThrough(t *testing.T) {
	reply := allBytes()
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("X-Upstream", "yes")
		w.Header().Set("Request-Id", "req_123")
		w.WriteHeader(http.StatusCreated)
		w.Write(reply)
	})
	for _, tc := range []struct {
		name, upPath, prefix, path, wantPath string
	}{
		{"no paths", "", "", "/v1/messages?beta=true", "/v1/messages"},
		{"an upstream path", "/base/", "", "/v1/messages?beta=true", "/base/v1/messages"},
		{"Codex's prefix", "/backend-api/codex", "/v1", "/v1/responses", "/backend-api/codex/responses"},
		{"the prefix as the upstream's path", "/v1", "/v1", "/v1/responses?x=1", "/v1/responses"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newProxyServer(t, Options{Agent: Claude, Upstream: up.srv.URL + tc.upPath, Prefix: tc.prefix})
			bodies := [][]byte{
				[]byte(`{"model":"claude-sonnet-4-5","stream":false,"messages":[{"role":"user","content":"héllo 😀"}]}`),
				allBytes(), // not JSON: forwarded as it is
			}
			before := len(up.requests())
			for _, body := range bodies {
				resp, got := s.do(t, http.MethodPost, tc.path, body, map[string]string{
					"x-api-key": "sk-ant-test", "anthropic-version": "2023-06-01", "Content-Type": "application/json",
					"User-Agent": "claude-cli/2.1.328 (external, cli)", "Anthropic-Beta": "a,b",
				})
				if resp.StatusCode != http.StatusCreated || !bytes.Equal(got, reply) {
					t.Fatalf("status %d, body %q; want 201 and the upstream's bytes", resp.StatusCode, got)
				}
				for k, v := range map[string]string{"Content-Type": "application/octet-stream", "X-Upstream": "yes", "Request-Id": "req_123"} {
					if resp.Header.Get(k) != v {
						t.Errorf("response header %s = %q, want %q", k, resp.Header.Get(k), v)
					}
				}
			}
			got := up.requests()[before:]
			if len(got) != len(bodies) {
				t.Fatalf("the upstream got %d requests", len(got))
			}
			wantQuery := ""
			if _, q, ok := strings.Cut(tc.path, "?"); ok {
				wantQuery = q
			}
			for i, r := range got {
				if !bytes.Equal(r.body, bodies[i]) {
					t.Errorf("request %d: the upstream got %q, the client sent %q", i, r.body, bodies[i])
				}
				if r.method != http.MethodPost || r.path != tc.wantPath || r.rawQuery != wantQuery || r.host != up.srv.Listener.Addr().String() {
					t.Errorf("request %d: %s %s ? %s to %s, want %s ? %s", i, r.method, r.path, r.rawQuery, r.host, tc.wantPath, wantQuery)
				}
				for k, v := range map[string]string{"X-Api-Key": "sk-ant-test", "Anthropic-Version": "2023-06-01",
					"User-Agent": "claude-cli/2.1.328 (external, cli)", "Anthropic-Beta": "a,b", "Content-Length": fmt.Sprint(len(bodies[i]))} {
					if r.header.Get(k) != v {
						t.Errorf("request %d: header %s = %q, want %q", i, k, r.header.Get(k), v)
					}
				}
				if r.header.Get("X-Forwarded-For") != "" {
					t.Errorf("request %d: X-Forwarded-For %q added", i, r.header.Get("X-Forwarded-For"))
				}
			}
			reqs := s.requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests recorded", len(reqs))
			}
			for i, q := range reqs {
				if q.Seq != i+1 || q.Method != http.MethodPost || q.Path != tc.path || q.API != apiOf(tc.path) ||
					q.Status != http.StatusCreated || q.Bytes != len(bodies[i]) || q.Client != "claude-cli 2.1.328" ||
					q.UserAgent != "claude-cli/2.1.328 (external, cli)" {
					t.Errorf("request %d recorded as %+v", i, q)
				}
				checkSum(t, q.Segments, bodies[i])
			}
			if reqs[0].Model != "claude-sonnet-4-5" || reqs[0].Stream || len(reqs[0].Notes) != 0 {
				t.Errorf("the JSON request: model %q stream %v notes %q", reqs[0].Model, reqs[0].Stream, reqs[0].Notes)
			}
			if len(reqs[1].Segments) != 1 || len(reqs[1].Notes) != 1 {
				t.Errorf("the request that is not JSON: %+v", reqs[1])
			}
		})
	}
}

// readEvent reads one server-sent event: its lines up to a blank one.
func readEvent(r *bufio.Reader) (string, error) {
	var b strings.Builder
	for {
		line, err := r.ReadString('\n')
		b.WriteString(line)
		if err != nil {
			return b.String(), err
		}
		if line == "\n" || line == "\r\n" {
			return b.String(), nil
		}
	}
}

// TestProxyStreams: an event the upstream flushes reaches the client
// while the upstream still holds back the rest of its answer.
func TestProxyStreams(t *testing.T) {
	first := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":12}}}\n\n"
	rest := "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	release := make(chan struct{})
	var once sync.Once
	let := func() { once.Do(func() { close(release) }) }
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, first)
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, rest)
	})
	t.Cleanup(let) // before the servers close, should the test fail
	s := newProxyServer(t, Options{Agent: Claude, Upstream: up.srv.URL})

	type result struct {
		resp  *http.Response
		body  *bufio.Reader
		event string
		err   error
	}
	got := make(chan result, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, s.srv.URL+"/v1/messages", strings.NewReader(`{"model":"m","stream":true,"messages":[]}`))
		resp, err := s.client.Do(req)
		if err != nil {
			got <- result{err: err}
			return
		}
		br := bufio.NewReader(resp.Body)
		ev, err := readEvent(br)
		got <- result{resp: resp, body: br, event: ev, err: err}
	}()
	r := testwait.Recv(t, got, "the first event, while the upstream holds back the rest")
	if r.err != nil {
		t.Fatal(r.err)
	}
	defer r.resp.Body.Close()
	if r.event != first {
		t.Fatalf("first event %q, want %q", r.event, first)
	}
	let()
	tail, err := io.ReadAll(r.body)
	if err != nil {
		t.Fatal(err)
	}
	if string(tail) != rest {
		t.Errorf("the rest %q, want %q", tail, rest)
	}
	r.resp.Body.Close()
	reqs := s.requests()
	if len(reqs) != 1 || reqs[0].InputTokens == nil || *reqs[0].InputTokens != 12 || !reqs[0].Stream {
		t.Errorf("recorded %+v", reqs)
	}
}

// TestProxyRecordsNoCredential: the credentials reach the upstream and
// appear nowhere in the record.
func TestProxyRecordsNoCredential(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"candidates":[],"usageMetadata":{"promptTokenCount":3}}`)
	})
	upstream := strings.Replace(up.srv.URL, "http://", "http://user:SECRET7@", 1) + "/?key=SECRET8"
	s := newProxyServer(t, Options{Agent: Gemini, Upstream: upstream})
	headers := map[string]string{"Authorization": "Bearer SECRET1", "x-api-key": "SECRET2", "x-goog-api-key": "SECRET3",
		"Content-Type": "application/json"}
	body := []byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)
	paths := []string{
		"/v1beta/models/gemini-2.5-flash:generateContent?key=SECRET4",
		"/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=SECRET5",
		"/v1beta/models/gemini-2.5-flash:generateContent?alt=sse;key=SECRET6",
		"/v1beta/models/gemini-2.5-flash:generateContent?KEY=SECRET9%zz&api_key=SECRET10&access_token=SECRET11",
	}
	for _, path := range paths {
		resp, _ := s.do(t, http.MethodPost, path, body, headers)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d", path, resp.StatusCode)
		}
	}
	got := up.requests()
	if len(got) != len(paths) {
		t.Fatalf("the upstream got %d requests", len(got))
	}
	for i, r := range got {
		_, query, _ := strings.Cut(paths[i], "?")
		if i == 3 {
			query += "&key=SECRET8" // the upstream's own parameter, which the request does not set
		}
		if r.header.Get("Authorization") != "Bearer SECRET1" || r.header.Get("x-api-key") != "SECRET2" ||
			r.header.Get("x-goog-api-key") != "SECRET3" || r.rawQuery != query {
			t.Errorf("request %d: the upstream got headers %v query %q", i, r.header, r.rawQuery)
		}
	}
	rec := &Record{SchemaVersion: SchemaVersion, Tool: Tool{Name: "ctx", Version: "test"}, Agent: Gemini, Mode: ModePassThrough,
		Upstream: redactURL(upstream), Dir: "/work", Estimator: measure.Default().Name(), Requests: s.requests()}
	var b bytes.Buffer
	if err := Encode(&b, rec); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 11; i++ {
		if secret := fmt.Sprintf("SECRET%d", i); bytes.Contains(b.Bytes(), []byte(secret)) {
			t.Errorf("the record holds %s:\n%s", secret, b.String())
		}
	}
	if !strings.Contains(b.String(), `"path": "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"`) {
		t.Errorf("the record lost the parameters that are no credential:\n%s", b.String())
	}
}

func gzipped(t testing.TB, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	z := gzip.NewWriter(&out)
	z.Write(b)
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestProxyInputTokens: the provider's count of input tokens is read
// from its response, streamed or not, compressed or not.
func TestProxyInputTokens(t *testing.T) {
	for _, tc := range []struct {
		name, path, contentType, encoding, reply string
		want                                     int // -1: none
	}{
		{"Anthropic streamed, with the cache", "/v1/messages", "text/event-stream", "",
			"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":10,\"cache_creation_input_tokens\":200,\"cache_read_input_tokens\":3000,\"output_tokens\":1}}}\n\n" +
				"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n" +
				"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"input_tokens\":10,\"output_tokens\":50}}\n\n" +
				"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n", 3210},
		{"Anthropic not streamed", "/v1/messages", "application/json", "",
			`{"type":"message","usage":{"input_tokens":7,"cache_read_input_tokens":5,"output_tokens":3}}`, 12},
		{"Anthropic count_tokens", "/v1/messages/count_tokens", "application/json", "", `{"input_tokens":99}`, 99},
		{"OpenAI Responses streamed", "/v1/responses", "text/event-stream", "",
			"event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"r\",\"usage\":null}}\n\n" +
				"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"x\"}\n\n" +
				"event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"r\",\"usage\":{\"input_tokens\":1234,\"input_tokens_details\":{\"cached_tokens\":1000},\"output_tokens\":5}}}\n\n", 1234},
		{"OpenAI Responses not streamed", "/v1/responses", "application/json", "",
			`{"object":"response","usage":{"input_tokens":321,"output_tokens":1}}`, 321},
		{"Chat Completions streamed", "/v1/chat/completions", "text/event-stream", "",
			"data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}],\"usage\":null}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":44,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n", 44},
		{"Gemini streamed", "/v1beta/models/m:streamGenerateContent?alt=sse", "text/event-stream", "",
			"data: {\"candidates\":[],\"usageMetadata\":{\"promptTokenCount\":55}}\r\n\r\ndata: {\"candidates\":[],\"usageMetadata\":{\"promptTokenCount\":55,\"candidatesTokenCount\":9}}\r\n\r\n", 55},
		{"Gemini array", "/v1beta/models/m:streamGenerateContent", "application/json", "",
			`[{"usageMetadata":{"promptTokenCount":8}},{"usageMetadata":{"promptTokenCount":9}}]`, 9},
		{"Gemini not streamed", "/v1beta/models/m:generateContent", "application/json", "", `{"usageMetadata":{"promptTokenCount":66}}`, 66},
		{"Gemini countTokens", "/v1beta/models/m:countTokens", "application/json", "", `{"totalTokens":77}`, 77},
		{"gzip", "/v1/messages", "application/json", "gzip", `{"type":"message","usage":{"input_tokens":88,"output_tokens":1}}`, 88},
		{"gzip streamed", "/v1/messages", "text/event-stream", "gzip",
			"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5}}}\n\n", 5},
		{"no usage", "/v1/messages", "application/json", "", `{"type":"error","error":{"type":"overloaded_error"}}`, -1},
		{"not JSON", "/v1/messages", "text/plain", "", `upstream says no`, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reply := []byte(tc.reply)
			if tc.encoding == "gzip" {
				reply = gzipped(t, reply)
			}
			up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.contentType)
				if tc.encoding != "" {
					w.Header().Set("Content-Encoding", tc.encoding)
				}
				w.Write(reply)
			})
			s := newProxyServer(t, Options{Upstream: up.srv.URL})
			_, got := s.do(t, http.MethodPost, tc.path, []byte(`{"model":"m"}`), map[string]string{"Accept-Encoding": "gzip"})
			if !bytes.Equal(got, reply) {
				t.Errorf("the client got %q, the upstream sent %q", got, reply)
			}
			reqs := s.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			switch n := reqs[0].InputTokens; {
			case tc.want < 0 && n != nil:
				t.Errorf("input tokens %d, want none", *n)
			case tc.want >= 0 && (n == nil || *n != tc.want):
				t.Errorf("input tokens %v, want %d", n, tc.want)
			}
		})
	}
}

// TestProxyCompressedRequest: a compressed body is forwarded as it is,
// and attributed as what it holds.
func TestProxyCompressedRequest(t *testing.T) {
	plain := []byte(`{"model":"claude-opus","stream":true,"messages":[{"role":"user","content":"compressed prompt"}]}`)
	compress := func(t *testing.T, enc string) []byte {
		var b bytes.Buffer
		var w io.WriteCloser
		switch enc {
		case "gzip":
			w = gzip.NewWriter(&b)
		case "deflate":
			w = zlib.NewWriter(&b)
		case "raw deflate":
			w, _ = flate.NewWriter(&b, flate.DefaultCompression)
		case "br":
			w = brotli.NewWriter(&b)
		case "zstd":
			z, err := zstd.NewWriter(&b)
			if err != nil {
				t.Fatal(err)
			}
			w = z
		default:
			return []byte("\x1f\x9d not a known encoding")
		}
		w.Write(plain)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })
	for _, tc := range []struct {
		name, header string
		ok           bool
	}{
		{"gzip", "gzip", true},
		{"deflate", "deflate", true},
		{"raw deflate", "deflate", true},
		{"br", "br", true},
		{"zstd", "zstd", true},
		{"compress", "compress", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := compress(t, tc.name)
			s := newProxyServer(t, Options{Upstream: up.srv.URL})
			s.do(t, http.MethodPost, "/v1/messages", body, map[string]string{"Content-Encoding": tc.header})
			if got := up.requests(); !bytes.Equal(got[len(got)-1].body, body) || got[len(got)-1].header.Get("Content-Encoding") != tc.header {
				t.Errorf("the upstream did not get the compressed body as it was sent")
			}
			q := s.requests()[0]
			if !tc.ok {
				if q.Bytes != len(body) || len(q.Segments) != 1 || len(q.Notes) != 1 || !strings.Contains(q.Notes[0], "could not be read") {
					t.Errorf("recorded %+v", q)
				}
				return
			}
			checkSum(t, q.Segments, plain)
			if q.Bytes != len(plain) || q.Model != "claude-opus" || !q.Stream {
				t.Errorf("recorded %d bytes model %q stream %v, want %d", q.Bytes, q.Model, q.Stream, len(plain))
			}
			if len(q.Notes) != 1 || !strings.Contains(q.Notes[0], fmt.Sprintf("sent in %s, %d bytes", tc.header, len(body))) {
				t.Errorf("notes %q", q.Notes)
			}
			segment(t, q.Segments, KindPrompt, "")
		})
	}
}

// TestProxyMaxBody: a body over the limit is forwarded whole, and
// recorded by its size with a note.
func TestProxyMaxBody(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	body := bytes.Repeat([]byte("0123456789"), 500)
	for _, tc := range []struct {
		name    string
		max     int64
		size    int
		note    string
		chunked bool
	}{
		{"over, with its length", 1024, len(body), "a body of 5000 bytes, over the 1024 the proxy attributes: recorded by its size", false},
		{"over by a byte", int64(len(body)) - 1, len(body), "a body of 5000 bytes, over the 4999", false},
		// sent chunked: counted as it passes
		{"over, of no length given", 1024, len(body), "a body of 5000 bytes, over the 1024 the proxy attributes", true},
		{"at the limit", int64(len(body)), len(body), "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newProxyServer(t, Options{Upstream: up.srv.URL, MaxBody: tc.max})
			var r io.Reader = bytes.NewReader(body)
			if tc.chunked {
				r = io.MultiReader(r) // no length: sent chunked
			}
			req, _ := http.NewRequest(http.MethodPost, s.srv.URL+"/v1/messages", r)
			resp, err := s.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || string(got) != "ok" {
				t.Fatalf("status %d body %q", resp.StatusCode, got)
			}
			ups := up.requests()
			if last := ups[len(ups)-1]; !bytes.Equal(last.body, body) {
				t.Errorf("the upstream got %d bytes, the client sent %d", len(last.body), len(body))
			}
			q := s.requests()[0]
			if q.Bytes != tc.size {
				t.Errorf("recorded %d bytes, want %d", q.Bytes, tc.size)
			}
			checkSum(t, q.Segments, make([]byte, q.Bytes))
			if tc.note == "" {
				for _, n := range q.Notes {
					if strings.Contains(n, "over the") {
						t.Errorf("a body at the limit noted as over it: %q", n)
					}
				}
				return
			}
			if len(q.Notes) != 1 || !strings.Contains(q.Notes[0], tc.note) || len(q.Segments) != 1 || q.Segments[0].Kind != KindFraming {
				t.Errorf("notes %q segments %s, want a note %q", q.Notes, segList(q.Segments), tc.note)
			}
		})
	}
}

// partialTransport reads the first n bytes of a request's body, and
// answers without reading the rest.
type partialTransport struct{ n int64 }

func (p partialTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	io.CopyN(io.Discard, r.Body, p.n)
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("ok")), Request: r}, nil
}

// TestProxyMaxBodyChunked: a body over the limit with no length is
// recorded by its size, counted as it passes: all of it, in mock mode
// too; when the upstream does not read it to its end, "more than" what
// was read, in the note and the summary.
func TestProxyMaxBodyChunked(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789"), 500)
	for _, tc := range []struct {
		name    string
		o       Options
		bytes   int
		note    string
		summary string
	}{
		{"mock", Options{Mock: true, MaxBody: 1024}, len(body), "a body of 5000 bytes, over the 1024", "sent 5,000 bytes"},
		{"an upstream that stops reading", Options{Upstream: "http://upstream.invalid", Transport: partialTransport{2000}, MaxBody: 1024}, 2000,
			"a body of more than 1999 bytes (not read to its end)", "sent more than 1,999 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newProxyServer(t, tc.o)
			req, _ := http.NewRequest(http.MethodPost, s.srv.URL+"/v1/messages", io.MultiReader(bytes.NewReader(body)))
			resp, err := s.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			reqs := s.requests()
			if len(reqs) != 1 || reqs[0].Bytes != tc.bytes || len(reqs[0].Notes) != 1 || !strings.HasPrefix(reqs[0].Notes[0], tc.note) {
				t.Fatalf("recorded %+v, want %d bytes and a note %q", reqs, tc.bytes, tc.note)
			}
			var b bytes.Buffer
			if err := WriteSummary(&b, &Record{Mode: ModeMock, Requests: reqs}, SummaryOptions{}); err != nil || !strings.Contains(b.String(), tc.summary) {
				t.Errorf("summary %v:\n%s\nwant %q", err, b.String(), tc.summary)
			}
		})
	}
}

// TestProxyPassesHeadersAndEncoding: pass-through changes neither the
// request's headers (but for those of one hop) nor the answer's
// encoding: the proxy adds no Accept-Encoding of its own and decompresses
// nothing; the agent gets the upstream's Content-Encoding and bytes.
func TestProxyPassesHeadersAndEncoding(t *testing.T) {
	reply := gzipped(t, []byte(`data: {"type":"message_stop"}`+"\n\n"))
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(reply)
	})
	s := newProxyServer(t, Options{Agent: Claude, Upstream: up.srv.URL})
	for _, accept := range []string{"", "gzip, br"} {
		sent := map[string]string{"User-Agent": "claude-cli/2.1.328 (external, cli)", "X-Api-Key": "sk-ant-x", "Content-Type": "application/json",
			"Anthropic-Version": "2023-06-01", "X-Stainless-Retry-Count": "0", "Te": "trailers"} // TE: trailers is forwarded, as httputil does
		if accept != "" {
			sent["Accept-Encoding"] = accept
		}
		hop := map[string]string{"Connection": "X-Private, keep-alive", "X-Private": "one hop", "Keep-Alive": "timeout=5", "Proxy-Authorization": "Basic x"}
		all := map[string]string{}
		for k, v := range sent {
			all[k] = v
		}
		for k, v := range hop {
			all[k] = v
		}
		body := []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
		resp, got := s.do(t, http.MethodPost, "/v1/messages", body, all)
		if resp.Header.Get("Content-Encoding") != "gzip" || !bytes.Equal(got, reply) {
			t.Errorf("Accept-Encoding %q: the agent got Content-Encoding %q and %q, want gzip and the upstream's bytes", accept, resp.Header.Get("Content-Encoding"), got)
		}
		ups := up.requests()
		h := ups[len(ups)-1].header
		want := http.Header{"Content-Length": {fmt.Sprint(len(body))}}
		for k, v := range sent {
			want.Set(k, v)
		}
		if fmt.Sprint(h) != fmt.Sprint(want) {
			t.Errorf("Accept-Encoding %q: the upstream got\n  %v\nwant\n  %v", accept, h, want)
		}
	}
	s.requests()
}

// TestProxyUpstreamQuery: the upstream's own query parameters (Azure's
// api-version) are forwarded with the agent's, which win.
func TestProxyUpstreamQuery(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })
	s := newProxyServer(t, Options{Agent: Codex, Upstream: up.srv.URL + "/openai?api-version=2025-04-01-preview&deployment=d", Prefix: "/v1"})
	for _, tc := range []struct{ path, want string }{
		{"/v1/responses", "api-version=2025-04-01-preview&deployment=d"},
		{"/v1/responses?stream=true", "stream=true&api-version=2025-04-01-preview&deployment=d"},
		{"/v1/responses?api-version=1", "api-version=1&deployment=d"},
	} {
		s.do(t, http.MethodPost, tc.path, []byte(`{}`), nil)
		ups := up.requests()
		if r := ups[len(ups)-1]; r.path != "/openai/responses" || r.rawQuery != tc.want {
			t.Errorf("%s: the upstream got %s?%s, want /openai/responses?%s", tc.path, r.path, r.rawQuery, tc.want)
		}
	}
	s.requests()
}

// TestProxyRequestsWaitsForBody: Requests waits for a request whose body
// is still being read (its wait counts the request from the start of the
// handler), and returns it attributed.
func TestProxyRequestsWaitsForBody(t *testing.T) {
	s := newProxyServer(t, Options{Agent: Claude, Mock: true})
	pr, pw := io.Pipe()
	defer pw.Close() // the handler ends, so that the server can close
	sent := make(chan error, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, s.srv.URL+"/v1/messages", pr)
		resp, err := s.client.Do(req)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		sent <- err
	}()
	io.WriteString(pw, `{"model":"m","messages":[{"role":"user",`)
	testwait.Until(t, "the proxy reads the request", func() bool {
		s.p.mu.Lock()
		defer s.p.mu.Unlock()
		return len(s.p.reqs) == 1
	})
	got := make(chan []Request, 1)
	go func() { got <- s.p.Requests() }()
	// Requests waits (or returned at once: the bug)
	returned := false
	testwait.Until(t, "Requests waits for the request", func() bool {
		select {
		case r := <-got:
			got <- r
			returned = true
			return true
		default:
		}
		g := testwait.Goroutines()
		return strings.Contains(g, "observe.(*Proxy).Requests") && strings.Contains(g, "sync.(*WaitGroup).Wait")
	})
	if returned {
		t.Fatal("Requests returned while the body of a request was being read")
	}
	io.WriteString(pw, `"content":"hi"}]}`)
	pw.Close()
	if err := testwait.Recv(t, sent, "the response"); err != nil {
		t.Fatal(err)
	}
	reqs := testwait.Recv(t, got, "Requests")
	if len(reqs) != 1 || len(reqs[0].Segments) == 0 || reqs[0].Status != http.StatusOK {
		t.Errorf("Requests returned %+v, want the request attributed", reqs)
	}
	s.srv.Close()
}

// flakyTransport fails its first round trip.
type flakyTransport struct {
	mu     sync.Mutex
	failed bool
	next   http.RoundTripper
}

func (f *flakyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	f.mu.Lock()
	fail := !f.failed
	f.failed = true
	f.mu.Unlock()
	if fail {
		return nil, errors.New("the network is down")
	}
	return f.next.RoundTrip(r)
}

// TestProxyUpstreamDown: an upstream that cannot be reached is a 502
// that says so, and the proxy serves on.
func TestProxyUpstreamDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String()
	ln.Close()
	s := newProxyServer(t, Options{Upstream: down})
	for i := range 2 {
		resp, body := s.do(t, http.MethodPost, "/v1/messages?key=SECRET", []byte(`{"model":"m"}`), nil)
		if resp.StatusCode != http.StatusBadGateway {
			t.Fatalf("request %d: status %d", i, resp.StatusCode)
		}
		if want := "ctx observe: the upstream " + down + " failed: "; !strings.HasPrefix(string(body), want) || !strings.Contains(string(body), "refused") {
			t.Errorf("request %d: %q, want it to start with %q and say why", i, body, want)
		}
	}
	// the upstream's user information and query stay out of the message
	// the agent prints
	secret := newProxyServer(t, Options{Upstream: strings.Replace(down, "http://", "http://bob:PASSW0RD@", 1) + "/base?key=QUERYSECRET"})
	resp, body := secret.do(t, http.MethodPost, "/v1/messages", []byte(`{}`), nil)
	if want := "ctx observe: the upstream " + down + "/base failed: "; resp.StatusCode != http.StatusBadGateway || !strings.HasPrefix(string(body), want) ||
		strings.Contains(string(body), "PASSW0RD") || strings.Contains(string(body), "QUERYSECRET") || strings.Contains(string(body), "bob") {
		t.Errorf("%d %q, want it to start with %q", resp.StatusCode, body, want)
	}
	for _, q := range secret.requests() {
		if n := strings.Join(q.Notes, " "); strings.Contains(n, "SECRET") || strings.Contains(n, "PASSW0RD") {
			t.Errorf("notes %q", n)
		}
	}
	reqs := s.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for _, q := range reqs {
		if q.Status != 0 || len(q.Notes) != 1 || !strings.HasPrefix(q.Notes[0], "forwarding failed: ") || strings.Contains(q.Notes[0], "SECRET") {
			t.Errorf("recorded %+v", q)
		}
		checkSum(t, q.Segments, []byte(`{"model":"m"}`))
	}

	// a failure, then the upstream answers
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "fine") })
	s = newProxyServer(t, Options{Upstream: up.srv.URL, Transport: &flakyTransport{next: http.DefaultTransport.(*http.Transport).Clone()}})
	if resp, body := s.do(t, http.MethodPost, "/v1/messages", nil, nil); resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(body), "the network is down") {
		t.Errorf("first request: %d %q", resp.StatusCode, body)
	}
	if resp, body := s.do(t, http.MethodPost, "/v1/messages", nil, nil); resp.StatusCode != http.StatusOK || string(body) != "fine" {
		t.Errorf("second request: %d %q", resp.StatusCode, body)
	}
	if reqs := s.requests(); len(reqs) != 2 || reqs[0].Status != 0 || reqs[1].Status != http.StatusOK {
		t.Errorf("recorded %+v", reqs)
	}
}

func TestNewRefusesUpstream(t *testing.T) {
	for _, u := range []string{"", "api.anthropic.com", "ftp://x", "http://", "://x", "http://%zz"} {
		if _, err := New(Options{Upstream: u}); err == nil || !strings.Contains(err.Error(), "not an http or https URL") {
			t.Errorf("New(%q): %v", u, err)
		}
	}
	if _, err := New(Options{Mock: true}); err != nil {
		t.Errorf("mock with no upstream: %v", err)
	}
}

func TestListen(t *testing.T) {
	ctx := context.Background()
	for _, addr := range []string{"0.0.0.0:0", "192.168.1.20:0", "10.0.0.1:8080", ":0", "[::]:0", "example.com:0", "127.0.0.1", "localhost"} {
		ln, err := Listen(ctx, addr)
		if err == nil {
			ln.Close()
			t.Errorf("Listen(%q) listens", addr)
			continue
		}
		if strings.Contains(addr, ":") && !strings.Contains(err.Error(), "not a loopback address") {
			t.Errorf("Listen(%q): %v, want it to say it is not a loopback address", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0", "", "127.0.0.2:0", "[::1]:0"} {
		ln, err := Listen(ctx, addr)
		if err != nil {
			if addr == "[::1]:0" || addr == "127.0.0.2:0" { // the machine may have no such address
				t.Logf("Listen(%q): %v", addr, err)
				continue
			}
			t.Errorf("Listen(%q): %v", addr, err)
			continue
		}
		if ip := ln.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
			t.Errorf("Listen(%q) listens on %v", addr, ln.Addr())
		}
		ln.Close()
	}
}

// TestServe: Serve answers until its context is done, then returns.
func TestServe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ln, err := Listen(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(Options{Mock: true})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, ln, p) }()
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	resp, err := client.Post("http://"+ln.Addr().String()+"/v1/messages/count_tokens", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	client.CloseIdleConnections()
	cancel()
	if err := testwait.Recv(t, served, "Serve to return once its context is done"); err != nil {
		t.Errorf("Serve: %v", err)
	}
	if _, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		t.Error("the listener is open after Serve")
	}
}

// sseEvent is one server-sent event.
type sseEvent struct {
	name string
	data string
}

func parseEvents(t testing.TB, b []byte) []sseEvent {
	t.Helper()
	var out []sseEvent
	for _, block := range strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n\n") {
		if strings.TrimSpace(block) == "" {
			continue
		}
		var e sseEvent
		for _, line := range strings.Split(block, "\n") {
			switch {
			case strings.HasPrefix(line, "event: "):
				e.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				e.data = strings.TrimPrefix(line, "data: ")
			default:
				t.Fatalf("a line %q in an event", line)
			}
		}
		out = append(out, e)
	}
	if !bytes.HasSuffix(b, []byte("\n\n")) {
		t.Errorf("the stream does not end with a blank line: %q", b)
	}
	return out
}

func decodeJSON(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return m
}

// dig returns the value at a path of keys and indexes of decoded JSON.
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// TestMock: in mock mode the proxy answers each API in its own format,
// well formed, with ctx's count of the input tokens.
func TestMock(t *testing.T) {
	body := []byte(`{"model":"test-model","stream":false,"messages":[{"role":"user","content":"hi there"}]}`)
	streamBody := []byte(`{"model":"test-model","stream":true,"messages":[{"role":"user","content":"hi there"}]}`)
	gemini := []byte(`{"contents":[{"role":"user","parts":[{"text":"hi there"}]}]}`)
	tokens := func(b []byte) float64 { return float64(measure.Default().Tokens(b)) }
	for _, tc := range []struct {
		name, path string
		body       []byte
		status     int
		sse        bool
		check      func(t *testing.T, b []byte)
	}{
		{"Anthropic", "/v1/messages", body, 200, false, func(t *testing.T, b []byte) {
			m := decodeJSON(t, string(b))
			if m["type"] != "message" || m["role"] != "assistant" || m["model"] != "test-model" || dig(m, "content", 0, "text") != MockReply ||
				m["stop_reason"] != "end_turn" || dig(m, "usage", "input_tokens") != tokens(body) {
				t.Errorf("message %v", m)
			}
		}},
		{"Anthropic streamed", "/v1/messages?beta=true", streamBody, 200, true, func(t *testing.T, b []byte) {
			events := parseEvents(t, b)
			var types []string
			text := ""
			for _, e := range events {
				m := decodeJSON(t, e.data)
				if e.name != m["type"] {
					t.Errorf("event %q holds a %q", e.name, m["type"])
				}
				types = append(types, e.name)
				if d, ok := dig(m, "delta", "text").(string); ok {
					text += d
				}
			}
			want := "message_start content_block_start content_block_delta content_block_stop message_delta message_stop"
			if strings.Join(types, " ") != want {
				t.Errorf("events %q, want %q", types, want)
			}
			if text != MockReply {
				t.Errorf("text %q", text)
			}
			if n := dig(decodeJSON(t, events[0].data), "message", "usage", "input_tokens"); n != tokens(streamBody) {
				t.Errorf("input tokens %v, want %v", n, tokens(streamBody))
			}
			if dig(decodeJSON(t, events[4].data), "delta", "stop_reason") != "end_turn" {
				t.Errorf("message_delta %s", events[4].data)
			}
		}},
		{"Anthropic count_tokens", "/v1/messages/count_tokens", body, 200, false, func(t *testing.T, b []byte) {
			if m := decodeJSON(t, string(b)); m["input_tokens"] != tokens(body) || len(m) != 1 {
				t.Errorf("count %v", m)
			}
		}},
		{"OpenAI Responses", "/v1/responses", body, 200, false, func(t *testing.T, b []byte) {
			m := decodeJSON(t, string(b))
			if m["object"] != "response" || m["status"] != "completed" || m["model"] != "test-model" ||
				dig(m, "output", 0, "content", 0, "text") != MockReply || dig(m, "output", 0, "role") != "assistant" ||
				dig(m, "usage", "input_tokens") != tokens(body) {
				t.Errorf("response %v", m)
			}
		}},
		{"OpenAI Responses streamed", "/v1/responses", streamBody, 200, true, func(t *testing.T, b []byte) {
			events := parseEvents(t, b)
			var types []string
			text := ""
			for _, e := range events {
				m := decodeJSON(t, e.data)
				if e.name != m["type"] {
					t.Errorf("event %q holds a %q", e.name, m["type"])
				}
				types = append(types, e.name)
				if e.name == "response.output_text.delta" {
					text += m["delta"].(string)
				}
			}
			if types[0] != "response.created" || types[len(types)-1] != "response.completed" {
				t.Errorf("events %q", types)
			}
			if text != MockReply {
				t.Errorf("text %q", text)
			}
			last := decodeJSON(t, events[len(events)-1].data)
			if dig(last, "response", "status") != "completed" || dig(last, "response", "usage", "input_tokens") != tokens(streamBody) ||
				dig(last, "response", "output", 0, "content", 0, "text") != MockReply {
				t.Errorf("response.completed %v", last)
			}
		}},
		{"Chat Completions", "/v1/chat/completions", body, 200, false, func(t *testing.T, b []byte) {
			m := decodeJSON(t, string(b))
			if m["object"] != "chat.completion" || dig(m, "choices", 0, "message", "content") != MockReply ||
				dig(m, "choices", 0, "finish_reason") != "stop" || dig(m, "usage", "prompt_tokens") != tokens(body) {
				t.Errorf("completion %v", m)
			}
		}},
		{"Chat Completions streamed", "/v1/chat/completions", streamBody, 200, true, func(t *testing.T, b []byte) {
			events := parseEvents(t, b)
			if len(events) < 2 || events[len(events)-1].data != "[DONE]" {
				t.Fatalf("events %v: want [DONE] last", events)
			}
			text := ""
			for i, e := range events[:len(events)-1] {
				m := decodeJSON(t, e.data)
				if e.name != "" || m["object"] != "chat.completion.chunk" {
					t.Errorf("chunk %d: %q %v", i, e.name, m)
				}
				if d, ok := dig(m, "choices", 0, "delta", "content").(string); ok {
					text += d
				}
			}
			if text != MockReply {
				t.Errorf("text %q", text)
			}
			last := decodeJSON(t, events[len(events)-2].data)
			if dig(last, "choices", 0, "finish_reason") != "stop" || dig(last, "usage", "prompt_tokens") != tokens(streamBody) {
				t.Errorf("last chunk %v", last)
			}
		}},
		{"Gemini generateContent", "/v1beta/models/gemini-2.5-flash:generateContent", gemini, 200, false, func(t *testing.T, b []byte) {
			checkGemini(t, decodeJSON(t, string(b)), tokens(gemini))
		}},
		{"Gemini streamGenerateContent, SSE", "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", gemini, 200, true, func(t *testing.T, b []byte) {
			events := parseEvents(t, b)
			if len(events) == 0 {
				t.Fatal("no event")
			}
			for _, e := range events {
				if e.name != "" {
					t.Errorf("a named event %q", e.name)
				}
				checkGemini(t, decodeJSON(t, e.data), tokens(gemini))
			}
		}},
		{"Gemini streamGenerateContent, an array", "/v1beta/models/gemini-2.5-flash:streamGenerateContent", gemini, 200, false, func(t *testing.T, b []byte) {
			var a []map[string]any
			if err := json.Unmarshal(b, &a); err != nil || len(a) == 0 {
				t.Fatalf("%q: %v", b, err)
			}
			for _, m := range a {
				checkGemini(t, m, tokens(gemini))
			}
		}},
		{"Gemini countTokens", "/v1beta/models/gemini-2.5-flash:countTokens", gemini, 200, false, func(t *testing.T, b []byte) {
			if m := decodeJSON(t, string(b)); m["totalTokens"] != tokens(gemini) || len(m) != 1 {
				t.Errorf("count %v", m)
			}
		}},
		{"an unknown path", "/v1/models", nil, 404, false, func(t *testing.T, b []byte) {
			m := decodeJSON(t, string(b))
			if dig(m, "error", "type") != "not_found_error" || !strings.Contains(dig(m, "error", "message").(string), "POST /v1/models") {
				t.Errorf("error %v", m)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newProxyServer(t, Options{Mock: true})
			resp, b := s.do(t, http.MethodPost, tc.path, tc.body, map[string]string{"Content-Type": "application/json"})
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, b)
			}
			ct := resp.Header.Get("Content-Type")
			if tc.sse && ct != "text/event-stream" || !tc.sse && ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			tc.check(t, b)
			reqs := s.requests()
			if len(reqs) != 1 || reqs[0].Status != tc.status || reqs[0].API != apiOf(tc.path) {
				t.Errorf("recorded %+v", reqs)
			}
			checkSum(t, reqs[0].Segments, tc.body)
		})
	}
}

func checkGemini(t *testing.T, m map[string]any, tokens float64) {
	t.Helper()
	if dig(m, "candidates", 0, "content", "parts", 0, "text") != MockReply || dig(m, "candidates", 0, "content", "role") != "model" ||
		dig(m, "candidates", 0, "finishReason") != "STOP" || dig(m, "usageMetadata", "promptTokenCount") != tokens ||
		m["modelVersion"] != "gemini-2.5-flash" {
		t.Errorf("response %v", m)
	}
}

// benchBody is a request of Claude Code of about size bytes.
func benchBody(size int) []byte {
	var b strings.Builder
	b.WriteString(`{"model":"claude-sonnet-4-5","stream":false,"system":"You are Claude Code.","messages":[`)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"role":"user","content":[{"type":"text","text":%s}]}`, q(strings.Repeat(fmt.Sprintf("line %d of the conversation, ", i), 8)))
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// BenchmarkProxyOverhead: a request of 50 KB to a fake upstream, directly
// and through the proxy; the difference is the latency the proxy adds
// (its attribution included, which runs beside the forwarding and takes
// CPU from it on a small machine).
func BenchmarkProxyOverhead(b *testing.B) {
	body := benchBody(50 << 10)
	reply := []byte(`{"type":"message","usage":{"input_tokens":12000,"output_tokens":1}}`)
	upDirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Write(reply)
	}))
	defer upDirect.Close()
	p, err := New(Options{Agent: Claude, Upstream: upDirect.URL})
	if err != nil {
		b.Fatal(err)
	}
	ps := httptest.NewServer(p)
	defer ps.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	defer client.CloseIdleConnections()
	// each request's latency, from its sending to the end of its
	// response, with the proxy idle (the attribution of the previous
	// request, which runs once its response is out, has ended: an agent's
	// requests are seconds apart); the median is reported beside the mean
	// (ns/op), which includes the attribution
	run := func(b *testing.B, url string, body []byte) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		var lat []time.Duration
		for b.Loop() {
			p.wg.Wait()
			start := time.Now()
			resp, err := client.Post(url, "application/json", bytes.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			lat = append(lat, time.Since(start))
			if resp.StatusCode != http.StatusOK {
				b.Fatalf("status %d", resp.StatusCode)
			}
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "median-ns/req")
	}
	b.Run("direct", func(b *testing.B) { run(b, upDirect.URL+"/v1/messages", body) })
	b.Run("proxy", func(b *testing.B) { run(b, ps.URL+"/v1/messages", body) })
	// the forwarding alone: a body of the same size that is not JSON,
	// whose attribution (beside the forwarding) ends at its first byte
	notJSON := append([]byte("x"), body[1:]...)
	b.Run("proxy, not attributed", func(b *testing.B) { run(b, ps.URL+"/v1/messages", notJSON) })
	p.Requests() // the attribution under way ends before the servers close
}

func BenchmarkAttribute(b *testing.B) {
	body := benchBody(50 << 10)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		Attribute(Claude, "/v1/messages", body, nil, nil)
	}
}
