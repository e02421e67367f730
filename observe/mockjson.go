package observe

import (
	"encoding/json"
	"strings"
)

// mockJSONReply is the text the mock answers a request for JSON with: an
// instance of the schema the request gives (Gemini's
// generationConfig.responseJsonSchema or responseSchema, OpenAI's
// text.format or response_format json_schema), so that an agent that asks
// its model for JSON (Gemini CLI routes each turn by a classifier's JSON
// answer, and retries five times with backoff on anything else) goes on
// at once. ok is false for a request that asks for no JSON.
func mockJSONReply(body []byte) (reply string, ok bool) {
	var req struct {
		GenerationConfig struct {
			MimeType   string `json:"responseMimeType"`
			JSONSchema any    `json:"responseJsonSchema"`
			Schema     any    `json:"responseSchema"`
		} `json:"generationConfig"`
		Text struct {
			Format struct {
				Type   string `json:"type"`
				Schema any    `json:"schema"`
			} `json:"format"`
		} `json:"text"`
		ResponseFormat struct {
			Type       string `json:"type"`
			JSONSchema struct {
				Schema any `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	if json.Unmarshal(body, &req) != nil {
		return "", false
	}
	var schema any
	switch g := req.GenerationConfig; {
	case g.MimeType == "application/json":
		schema = g.JSONSchema
		if schema == nil {
			schema = g.Schema
		}
	case req.Text.Format.Type == "json_schema":
		schema = req.Text.Format.Schema
	case req.Text.Format.Type == "json_object" || req.ResponseFormat.Type == "json_object":
	case req.ResponseFormat.Type == "json_schema":
		schema = req.ResponseFormat.JSONSchema.Schema
	default:
		return "", false
	}
	budget := 1000
	v := instance(schema, 0, &budget)
	if v == nil {
		v = map[string]any{}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "{}", true
	}
	return string(b), true
}

// instance is a small value valid for a JSON Schema (or a Gemini Schema,
// whose types are upper case): every property of an object, the first of
// an enum or a choice, the least number allowed (1 when no bound says), the
// fewest items; at most
// *budget schemas are visited (a schema of nested arrays with minItems
// would otherwise grow without bound).
func instance(schema any, depth int, budget *int) any {
	s, _ := schema.(map[string]any)
	if s == nil || depth > 32 || *budget <= 0 {
		return nil
	}
	*budget--
	if c, ok := s["const"]; ok {
		return c
	}
	if e, _ := s["enum"].([]any); len(e) > 0 {
		return e[0]
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if alts, _ := s[k].([]any); len(alts) > 0 {
			for _, a := range alts {
				if v := instance(a, depth+1, budget); v != nil {
					return v
				}
			}
		}
	}
	typ := ""
	switch t := s["type"].(type) {
	case string:
		typ = t
	case []any:
		for _, x := range t {
			if x, _ := x.(string); x != "" && x != "null" {
				typ = x
				break
			}
		}
	}
	if typ == "" {
		switch {
		case s["properties"] != nil:
			typ = "object"
		case s["items"] != nil:
			typ = "array"
		}
	}
	switch strings.ToLower(typ) {
	case "object":
		out := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		for k, p := range props {
			if v := instance(p, depth+1, budget); v != nil {
				out[k] = v
			}
		}
		return out
	case "array":
		n, _ := s["minItems"].(float64)
		if n > 16 {
			n = 16
		}
		out := []any{}
		for i := 0; i < int(n); i++ {
			out = append(out, instance(s["items"], depth+1, budget))
		}
		return out
	case "string":
		n, _ := s["minLength"].(float64)
		return strings.Repeat("x", min(int(n), 64))
	case "integer", "number":
		if m, ok := s["minimum"].(float64); ok {
			return m
		}
		if m, ok := s["exclusiveMinimum"].(float64); ok {
			return m + 1
		}
		// 1 where no least is given: a classifier's score (Gemini CLI
		// checks its router's complexity score is 1 to 100, which its
		// schema does not say) reads as a simple request
		if m, ok := s["maximum"].(float64); ok && m < 1 {
			return m
		}
		return 1
	case "boolean":
		return false
	}
	return nil
}
