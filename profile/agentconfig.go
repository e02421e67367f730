package profile

import (
	"encoding/json"
	"path/filepath"

	"github.com/pelletier/go-toml/v2"

	"github.com/ctxaudit/ctx/internal/decodelimit"
	"github.com/ctxaudit/ctx/internal/fileio"
)

// maxAgentConfig bounds an agent's own configuration file.
const maxAgentConfig = 1 << 20

// agentConfig fills the options an agent reads from its own configuration
// when ctx's options leave them empty, so ctx sees what the agent sees:
// Codex's $CODEX_HOME/config.toml (project_doc_max_bytes,
// project_doc_fallback_filenames, project_root_markers) and Gemini CLI's
// settings.json (context.fileName; the project's .gemini/settings.json
// over the user's ~/.gemini/settings.json). It returns the files it read.
// A file that is missing or malformed is skipped: the agent would not start
// with a malformed one, and ctx reports what it can. So is one nested
// deeper than ctx decodes, or a TOML file with more tables or values than
// its size can hold (decodelimit).
func agentConfig(name Name, o *Options, root string) []string {
	var read []string
	switch name {
	case Codex:
		dir := o.Getenv("CODEX_HOME")
		if dir == "" && o.Home != "" {
			dir = filepath.Join(o.Home, ".codex")
		}
		if dir == "" {
			return nil
		}
		p := filepath.Join(dir, "config.toml")
		b, _, err := fileio.Read(p, maxAgentConfig)
		if err != nil {
			return nil
		}
		var c struct {
			MaxBytes  *int64   `toml:"project_doc_max_bytes"`
			Fallbacks []string `toml:"project_doc_fallback_filenames"`
			Markers   []string `toml:"project_root_markers"`
		}
		if decodelimit.TOML(b, 0) != nil || toml.Unmarshal(b, &c) != nil {
			return nil
		}
		read = append(read, p)
		if o.CodexMaxBytes == 0 && c.MaxBytes != nil {
			switch {
			case *c.MaxBytes == 0:
				// Codex reads no project document at all
				o.CodexMaxBytes = CodexProjectDocsOff
			case *c.MaxBytes > 0:
				o.CodexMaxBytes = *c.MaxBytes
			}
		}
		if o.CodexFallbackNames == nil {
			o.CodexFallbackNames = c.Fallbacks
		}
		if o.RootMarkers == nil && c.Markers != nil {
			o.RootMarkers = c.Markers
		}
	case Gemini:
		if o.GeminiFileNames != nil {
			return nil
		}
		var paths []string
		if o.Home != "" {
			paths = append(paths, filepath.Join(o.Home, ".gemini", "settings.json"))
		}
		for _, d := range []string{root, o.Dir} {
			if d != "" {
				paths = append(paths, filepath.Join(d, ".gemini", "settings.json"))
			}
		}
		for _, p := range paths {
			b, _, err := fileio.Read(p, maxAgentConfig)
			if err != nil {
				continue
			}
			var s struct {
				Context struct {
					FileName json.RawMessage `json:"fileName"`
				} `json:"context"`
			}
			if decodelimit.JSON(b, decodelimit.Options{}) != nil || json.Unmarshal(b, &s) != nil {
				continue
			}
			read = append(read, p)
			var one string
			var many []string
			switch {
			case json.Unmarshal(s.Context.FileName, &one) == nil && one != "":
				o.GeminiFileNames = []string{one}
			case json.Unmarshal(s.Context.FileName, &many) == nil && len(many) > 0:
				o.GeminiFileNames = many
			}
		}
	case Claude:
		if o.ClaudeExternalImports != nil || o.Home == "" {
			return nil
		}
		// ~/.claude.json: per project (keyed by its git root, else the
		// working directory), whether the user approved imports of files
		// outside the working directory
		p := filepath.Join(o.Home, ".claude.json")
		b, _, err := fileio.Read(p, maxClaudeState)
		if err != nil {
			return nil
		}
		var s struct {
			Projects map[string]struct {
				Approved bool `json:"hasClaudeMdExternalIncludesApproved"`
			} `json:"projects"`
		}
		if decodelimit.JSON(b, decodelimit.Options{}) != nil || json.Unmarshal(b, &s) != nil {
			return nil
		}
		read = append(read, p)
		key := root
		if key == "" {
			key = o.Dir
		}
		approved := s.Projects[key].Approved
		o.ClaudeExternalImports = &approved
	}
	return read
}

// maxClaudeState bounds Claude Code's ~/.claude.json, which keeps the
// state of every project the user opened.
const maxClaudeState = 16 << 20
