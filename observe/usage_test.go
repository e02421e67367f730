package observe

import (
	"strings"
	"testing"
)

func TestInputTokens(t *testing.T) {
	for _, tc := range []struct {
		name, response string
		want           int // -1: none
	}{
		// Anthropic
		{"Anthropic message", `{"id":"m","type":"message","usage":{"input_tokens":12,"output_tokens":3}}`, 12},
		{"Anthropic message with the cache", `{"type":"message","usage":{"input_tokens":2,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000}}`, 1102},
		{"Anthropic stream", "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":4,\"cache_read_input_tokens\":6}}}\n\n" +
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":9}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n", 10},
		{"Anthropic stream whose delta repeats the input", "data: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":4,\"cache_read_input_tokens\":6}}}\n\n" +
			"data: {\"type\":\"message_delta\",\"usage\":{\"input_tokens\":4,\"output_tokens\":9}}\n\n", 10},
		{"Anthropic delta alone", "data: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":9}}\n\n", -1},
		{"Anthropic count_tokens", `{"input_tokens":321}`, 321},
		{"Anthropic usage without input tokens", `{"type":"message","usage":{"output_tokens":3}}`, -1},
		// OpenAI
		{"Responses", `{"object":"response","usage":{"input_tokens":77,"input_tokens_details":{"cached_tokens":70},"output_tokens":5,"total_tokens":82}}`, 77},
		{"Responses stream", "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"usage\":null}}\n\n" +
			"event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"usage\":{\"input_tokens\":88}}}\n\n", 88},
		{"Responses stream not completed", "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"usage\":null}}\n\n", -1},
		{"Chat Completions", `{"object":"chat.completion","usage":{"prompt_tokens":15,"completion_tokens":2}}`, 15},
		{"Chat Completions stream", "data: {\"choices\":[],\"usage\":null}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":16}}\n\ndata: [DONE]\n\n", 16},
		// Gemini
		{"Gemini", `{"candidates":[],"usageMetadata":{"promptTokenCount":21,"candidatesTokenCount":1}}`, 21},
		{"Gemini array", `[{"usageMetadata":{"promptTokenCount":21}},{"candidates":[]},{"usageMetadata":{"promptTokenCount":22}}]`, 22},
		{"Gemini array with white space", "\n [ {\"usageMetadata\":{\"promptTokenCount\":5}} ]\n", 5},
		{"Gemini SSE", "data: {\"usageMetadata\":{\"promptTokenCount\":30}}\r\n\r\ndata: {\"usageMetadata\":{\"promptTokenCount\":31}}\r\n\r\n", 31},
		{"Gemini countTokens", `{"totalTokens":40}`, 40},
		{"data: without a space", "data:{\"input_tokens\":3}\n", 3},
		// nothing
		{"empty", ``, -1},
		{"white space", " \n", -1},
		{"not JSON", `upstream error`, -1},
		{"an error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, -1},
		{"a cut document", `{"usage":{"input_tokens":5`, -1},
		{"a number", `5`, -1},
		{"an array of numbers", `[1,2]`, -1},
		{"SSE of other data", "data: [DONE]\n\ndata: hello\n\n", -1},
		{"a count that is not a number", `{"input_tokens":"5"}`, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := inputTokens([]byte(tc.response))
			switch {
			case tc.want < 0 && n != nil:
				t.Errorf("input tokens %d, want none", *n)
			case tc.want >= 0 && (n == nil || *n != tc.want):
				t.Errorf("input tokens %v, want %d", n, tc.want)
			}
		})
	}
}

// TestUsageKept: the proxy reads the count from the start or the end of
// a response longer than it keeps.
func TestUsageKept(t *testing.T) {
	start := "data: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":40}}}\n\n"
	filler := strings.Repeat("data: {\"type\":\"content_block_delta\",\"delta\":{\"text\":\"xxxxxxxxxxxxxxxx\"}}\n\n", 3*keptResponse/64)
	end := "data: {\"type\":\"response.completed\",\"response\":{\"usage\":{\"input_tokens\":50}}}\n\n"
	for _, tc := range []struct {
		name, body string
		want       int
	}{
		{"at the start", start + filler, 40},
		{"at the end", filler + end, 50},
		{"at both", start + filler + end, 50},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []byte
			var total int64
			k := &keeper{ReadCloser: nopCloser{strings.NewReader(tc.body)}, done: func(head, tail []byte, n int64) {
				if len(head) > keptResponse || len(tail) > keptResponse {
					t.Errorf("kept %d and %d bytes, over %d", len(head), len(tail), keptResponse)
				}
				if !strings.HasPrefix(tc.body, string(head)) || !strings.HasSuffix(tc.body, string(tail)) {
					t.Error("head or tail is not the response's")
				}
				got, total = append(head, tail...), n
				p := &Proxy{}
				req := &Request{}
				p.usage(req, "", head, tail, n)
				if req.InputTokens == nil || *req.InputTokens != tc.want {
					t.Errorf("input tokens %v, want %d", req.InputTokens, tc.want)
				}
			}}
			buf := make([]byte, 7000)
			for {
				if _, err := k.Read(buf); err != nil {
					break
				}
			}
			k.Close()
			if got == nil || total != int64(len(tc.body)) {
				t.Errorf("done after %d bytes of %d", total, len(tc.body))
			}
		})
	}
}

type nopCloser struct{ *strings.Reader }

func (nopCloser) Close() error { return nil }
