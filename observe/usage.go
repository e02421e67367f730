package observe

import (
	"bytes"
	"encoding/json"
)

// inputTokens returns the provider's count of a request's input tokens
// from (part of) its response: a JSON document, an array of them, or
// server-sent events, in any of the wire formats the proxy knows; nil when
// b holds none. The last count found wins (Gemini repeats it in every
// chunk, OpenAI gives it at the end).
func inputTokens(b []byte) *int {
	var found *int
	try := func(doc []byte) {
		if n := usageOf(doc); n != nil {
			found = n
		}
	}
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') && json.Valid(trimmed) {
		if trimmed[0] == '[' {
			var docs []json.RawMessage
			if json.Unmarshal(trimmed, &docs) == nil {
				for _, d := range docs {
					try(d)
				}
			}
			return found
		}
		try(trimmed)
		return found
	}
	for line := range bytes.Lines(b) {
		if data, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r\n"), []byte("data:")); ok {
			try(bytes.TrimSpace(data))
		}
	}
	return found
}

// usageOf reads the input tokens of one JSON document of a response.
func usageOf(doc []byte) *int {
	var d struct {
		Type    string                           `json:"type"`
		Message *struct{ Usage *anthropicUsage } `json:"message"`
		Usage   *struct {
			anthropicUsage
			PromptTokens *int `json:"prompt_tokens"`
		} `json:"usage"`
		Response *struct {
			Usage *struct {
				InputTokens *int `json:"input_tokens"`
			} `json:"usage"`
		} `json:"response"`
		UsageMetadata *struct {
			PromptTokenCount *int `json:"promptTokenCount"`
		} `json:"usageMetadata"`
		InputTokens *int `json:"input_tokens"`
		TotalTokens *int `json:"totalTokens"`
	}
	if json.Unmarshal(doc, &d) != nil {
		return nil
	}
	switch {
	case d.Message != nil && d.Message.Usage != nil:
		return d.Message.Usage.total()
	case d.Response != nil && d.Response.Usage != nil && d.Response.Usage.InputTokens != nil:
		return d.Response.Usage.InputTokens
	case d.Usage != nil && d.Usage.PromptTokens != nil:
		return d.Usage.PromptTokens
	case d.Usage != nil && d.Type != "message_delta":
		return d.Usage.total()
	case d.UsageMetadata != nil && d.UsageMetadata.PromptTokenCount != nil:
		return d.UsageMetadata.PromptTokenCount
	case d.InputTokens != nil:
		return d.InputTokens
	case d.TotalTokens != nil:
		return d.TotalTokens
	}
	return nil
}

// anthropicUsage is the usage of an Anthropic message: the input is the
// tokens read fresh, written to the cache and read from it.
type anthropicUsage struct {
	InputTokens              *int `json:"input_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
}

func (u *anthropicUsage) total() *int {
	if u == nil || u.InputTokens == nil {
		return nil
	}
	n := *u.InputTokens
	if u.CacheCreationInputTokens != nil {
		n += *u.CacheCreationInputTokens
	}
	if u.CacheReadInputTokens != nil {
		n += *u.CacheReadInputTokens
	}
	return &n
}
