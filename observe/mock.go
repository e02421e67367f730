package observe

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/ctxaudit/ctx/internal/jsonenc"
)

// MockReply is the text the mock answers every turn with.
const MockReply = "ok (ctx observe --mock)"

// mock answers a request in its own wire format and returns the status:
// Anthropic Messages (streamed or not) and count_tokens, OpenAI Responses
// and Chat Completions (streamed or not), Gemini generateContent,
// streamGenerateContent and countTokens. The input tokens it reports are
// ctx's count of the body with the proxy's estimator.
func (p *Proxy) mock(w http.ResponseWriter, r *http.Request, body []byte) int {
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	_ = json.Unmarshal(body, &req)
	tokens := p.o.Estimator.Tokens(body)
	reply := MockReply
	if j, ok := mockJSONReply(body); ok {
		reply = j
	}
	path := r.URL.Path
	switch apiOf(path) {
	case APICountTokens:
		if strings.Contains(path, ":countTokens") {
			return writeJSON(w, map[string]any{"totalTokens": tokens})
		}
		return writeJSON(w, map[string]any{"input_tokens": tokens})
	case APIMessages:
		msg := map[string]any{"id": "msg_ctx_observe", "type": "message", "role": "assistant", "model": req.Model,
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": tokens, "output_tokens": 0}}
		if !req.Stream {
			msg["content"] = []any{map[string]any{"type": "text", "text": reply}}
			msg["stop_reason"] = "end_turn"
			msg["usage"] = map[string]any{"input_tokens": tokens, "output_tokens": 1}
			return writeJSON(w, msg)
		}
		return writeEvents(w, true, []any{
			map[string]any{"type": "message_start", "message": msg},
			map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}},
			map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": reply}},
			map[string]any{"type": "content_block_stop", "index": 0},
			map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 1}},
			map[string]any{"type": "message_stop"},
		})
	case APIResponses:
		item := map[string]any{"type": "message", "id": "msg_ctx_observe", "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": reply, "annotations": []any{}}}}
		usage := map[string]any{"input_tokens": tokens, "output_tokens": 1, "total_tokens": tokens + 1,
			"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}
		done := map[string]any{"id": "resp_ctx_observe", "object": "response", "status": "completed", "model": req.Model,
			"output": []any{item}, "usage": usage}
		if !req.Stream {
			return writeJSON(w, done)
		}
		return writeEvents(w, true, []any{
			map[string]any{"type": "response.created", "response": map[string]any{"id": "resp_ctx_observe", "object": "response", "status": "in_progress", "model": req.Model, "output": []any{}}},
			map[string]any{"type": "response.output_item.added", "output_index": 0, "item": map[string]any{"type": "message", "id": "msg_ctx_observe", "status": "in_progress", "role": "assistant", "content": []any{}}},
			map[string]any{"type": "response.content_part.added", "item_id": "msg_ctx_observe", "output_index": 0, "content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}},
			map[string]any{"type": "response.output_text.delta", "item_id": "msg_ctx_observe", "output_index": 0, "content_index": 0, "delta": reply},
			map[string]any{"type": "response.output_text.done", "item_id": "msg_ctx_observe", "output_index": 0, "content_index": 0, "text": reply},
			map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item},
			map[string]any{"type": "response.completed", "response": done},
		})
	case APIChatCompletions:
		usage := map[string]any{"prompt_tokens": tokens, "completion_tokens": 1, "total_tokens": tokens + 1}
		if !req.Stream {
			return writeJSON(w, map[string]any{"id": "chatcmpl-ctx-observe", "object": "chat.completion", "model": req.Model,
				"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": reply}, "finish_reason": "stop"}},
				"usage":   usage})
		}
		chunk := func(delta map[string]any, finish any) map[string]any {
			return map[string]any{"id": "chatcmpl-ctx-observe", "object": "chat.completion.chunk", "model": req.Model,
				"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		}
		last := chunk(map[string]any{}, "stop")
		last["usage"] = usage
		status := writeEvents(w, false, []any{chunk(map[string]any{"role": "assistant", "content": reply}, nil), last})
		fmt.Fprint(w, "data: [DONE]\n\n")
		return status
	case APIGenerateContent:
		resp := map[string]any{
			"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": reply}}}, "finishReason": "STOP", "index": 0}},
			"usageMetadata": map[string]any{"promptTokenCount": tokens, "candidatesTokenCount": 1, "totalTokenCount": tokens + 1},
			"modelVersion":  modelOfPath(path),
		}
		switch {
		case !strings.HasSuffix(path, ":streamGenerateContent"):
			return writeJSON(w, resp)
		case r.URL.Query().Get("alt") == "sse":
			return writeEvents(w, false, []any{resp})
		default:
			return writeJSON(w, []any{resp})
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	b, _ := jsonenc.Compact(map[string]any{"error": map[string]any{"type": "not_found_error",
		"message": "ctx observe --mock answers the model calls of Anthropic, OpenAI and Gemini, not " + r.Method + " " + path}})
	w.Write(b)
	return http.StatusNotFound
}

// modelOfPath is the model of a Gemini path (/v1beta/models/NAME:method).
func modelOfPath(path string) string {
	_, m, ok := strings.Cut(path, "/models/")
	if !ok {
		return ""
	}
	m, _, _ = strings.Cut(m, ":")
	return m
}

func writeJSON(w http.ResponseWriter, v any) int {
	b, err := jsonenc.Compact(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(b)
	return http.StatusOK
}

// writeEvents writes server-sent events, each flushed as it is written;
// named events carry their type as the event name (Anthropic, OpenAI
// Responses).
func writeEvents(w http.ResponseWriter, named bool, events []any) int {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	for _, e := range events {
		b, err := jsonenc.Compact(e)
		if err != nil {
			continue
		}
		if named {
			fmt.Fprintf(w, "event: %s\n", e.(map[string]any)["type"])
		}
		fmt.Fprintf(w, "data: %s\n\n", b)
		if f != nil {
			f.Flush()
		}
	}
	return http.StatusOK
}
