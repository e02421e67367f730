package observe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/ctxaudit/ctx/internal/fileio"
	"github.com/ctxaudit/ctx/internal/jsonenc"
)

// SchemaVersion is the version of the observation record; an incompatible
// change of the record gets a new version and a new schema file
// (schemas/observation.v1.schema.json for this one).
const SchemaVersion = 1

// Record is what an agent sent through the proxy: one [Request] per call
// to its model endpoint, each cut into segments that add up to its body.
type Record struct {
	SchemaVersion int  `json:"schema_version"`
	Tool          Tool `json:"tool"`
	// Agent is the agent observed (claude, codex, gemini), or "" when the
	// proxy served another program.
	Agent Agent `json:"agent"`
	// Mode is "mock" (ctx answered) or "pass-through" (to Upstream).
	Mode     string `json:"mode"`
	Upstream string `json:"upstream,omitempty"`
	// Dir is the working directory the agent was started in.
	Dir string `json:"dir"`
	// Command is the command that was run by its shape: the program, its
	// flags and its short words as they are, any other argument (a prompt,
	// a setting, a token) as "<N bytes, blake3 PREFIX>"; empty when the
	// proxy served a program started elsewhere.
	Command []string `json:"command,omitempty"`
	// Estimator counts the tokens of the segments.
	Estimator string    `json:"estimator"`
	Requests  []Request `json:"requests"`
	// Comparison holds the prediction against what the agent sent, when
	// there was one to make.
	Comparison *Comparison `json:"comparison,omitempty"`
}

// Tool names the program that wrote the record.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// The modes of a record.
const (
	ModeMock        = "mock"
	ModePassThrough = "pass-through"
)

// Request is one request of the agent to its model endpoint.
type Request struct {
	// Seq numbers the requests from 1, in the order they arrived.
	Seq    int    `json:"seq"`
	Method string `json:"method"`
	// Path is the request's path and query, with credentials (key=) left
	// out.
	Path string `json:"path"`
	// API is the kind of call: messages, count_tokens, responses,
	// chat_completions, generate_content, or other.
	API string `json:"api"`
	// Client is the agent and version the User-Agent names ("claude-cli
	// 2.1.328"), and UserAgent the header itself.
	Client    string `json:"client,omitempty"`
	UserAgent string `json:"user_agent,omitempty"`
	Model     string `json:"model,omitempty"`
	Stream    bool   `json:"stream"`
	// Bytes is the size of the body as sent (compressed bodies are
	// attributed after decompression; Bytes is then the decompressed
	// size, and Notes says so).
	Bytes int `json:"bytes"`
	// Chars and Tokens add up the segments.
	Chars    int       `json:"chars"`
	Tokens   int       `json:"tokens"`
	Segments []Segment `json:"segments"`
	// Status is the HTTP status of the response (0 when none came).
	Status int `json:"status"`
	// InputTokens is the provider's own count of the request's input
	// tokens, read from its response (usage), when it gave one: the exact
	// figure for the model that was asked.
	InputTokens *int `json:"input_tokens,omitempty"`
	// Notes says what could not be attributed, and why.
	Notes []string `json:"notes,omitempty"`
}

// Segment is a part of a request body. The segments of a request add up
// to its bytes.
type Segment struct {
	Kind Kind `json:"kind"`
	// Name names the segment within its kind: a tool's name, an MCP
	// server, a file's path.
	Name   string `json:"name,omitempty"`
	Bytes  int    `json:"bytes"`
	Chars  int    `json:"chars"`
	Tokens int    `json:"tokens"`
	// File is set for an instruction file or a memory file found in the
	// request, attributed to the file on disk.
	File *SentFile `json:"file,omitempty"`
}

// Kind is what a segment holds.
type Kind string

// The kinds of segments.
const (
	KindSystemPrompt Kind = "system_prompt" // the agent's built-in instructions
	KindTool         Kind = "tool"          // one built-in tool's schema
	KindMCPTools     Kind = "mcp_tools"     // the tool schemas of one MCP server
	KindInstruction  Kind = "instruction_file"
	KindMemory       Kind = "memory"      // the agent's own memory files
	KindSkills       Kind = "skills"      // the list of skills
	KindEnvironment  Kind = "environment" // working directory, platform, git status, date
	KindReminder     Kind = "reminder"    // the agent's wrapping of the above, other reminders
	KindPrompt       Kind = "prompt"      // the user's last message
	KindConversation Kind = "conversation"
	KindFraming      Kind = "framing" // JSON structure, model and settings
)

// Kinds lists the kinds of segments in the order the summary shows them.
func Kinds() []Kind {
	return []Kind{KindSystemPrompt, KindTool, KindMCPTools, KindInstruction, KindMemory, KindSkills, KindEnvironment,
		KindReminder, KindPrompt, KindConversation, KindFraming}
}

// SentFile is a file of the disk found in a request.
type SentFile struct {
	// Path is the file's path, as the agent named it or as ctx found its
	// bytes.
	Path string `json:"path"`
	// Status is whole (the file as it is on disk, up to white space at its
	// end), cut (its first CutAt bytes), changed (something else), or
	// unread (the agent named a file ctx cannot read).
	Status string `json:"status"`
	// FileBytes is the file's size; SentBytes what was sent of it.
	FileBytes int  `json:"file_bytes"`
	SentBytes int  `json:"sent_bytes"`
	CutAt     *int `json:"cut_at,omitempty"`
	// FileHash and SentHash are the BLAKE3 of the file and of what was
	// sent.
	FileHash string `json:"file_hash,omitempty"`
	SentHash string `json:"sent_hash"`
}

// The statuses of a sent file.
const (
	SentWhole   = "whole"
	SentCut     = "cut"
	SentChanged = "changed"
	SentUnread  = "unread"
)

// Encode writes the record as indented JSON, with a final newline.
func Encode(w io.Writer, r *Record) error {
	return jsonenc.Write(w, r)
}

// Decode reads a record, refusing another schema version and unknown
// fields.
func Decode(b []byte) (*Record, error) {
	var head struct {
		SchemaVersion int `json:"schema_version"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("not an observation record: %w", err)
	}
	if head.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("observation record of schema_version %d; this ctx reads version %d", head.SchemaVersion, SchemaVersion)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var r Record
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("observation record: %w", err)
	}
	if dec.More() {
		return nil, errors.New("observation record: data after the record")
	}
	return &r, nil
}

// ReadFile reads a record from a file, refusing one over max bytes, with
// errors that name the file; validate, when not nil, checks the document
// first (schemas.CheckObservation, the record's JSON Schema).
func ReadFile(path string, max int64, validate func([]byte) error) (*Record, error) {
	b, _, err := fileio.Read(path, max)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if validate != nil {
		if err := validate(b); err != nil {
			return nil, fmt.Errorf("%s: not an observation record: %w", path, err)
		}
	}
	r, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Turn returns the request that carries the agent's turn: the first
// request to the model (messages, responses, chat_completions or
// generate_content) with tool schemas, which the agent's own loop always
// sends; else the first that holds an instruction or memory file; else
// the largest request to the model; nil when there is none. An agent may
// ask its model something first (to name the session, or, as Gemini CLI
// does, to route the turn by a classifier's answer, with the context but
// no tools); and its later requests carry the files it loaded since (a
// subfolder's, once it worked there), which are not expected at the start
// of a session.
func (r *Record) Turn() *Request {
	var largest, withFiles *Request
	for i := range r.Requests {
		q := &r.Requests[i]
		switch q.API {
		case APIMessages, APIResponses, APIChatCompletions, APIGenerateContent:
		default:
			continue
		}
		for _, s := range q.Segments {
			switch s.Kind {
			case KindTool, KindMCPTools:
				return q
			case KindInstruction, KindMemory:
				if withFiles == nil {
					withFiles = q
				}
			}
		}
		if largest == nil || q.Bytes > largest.Bytes {
			largest = q
		}
	}
	if withFiles != nil {
		return withFiles
	}
	return largest
}
