package mcpserver

// The output schemas of the tools: the shape of each document and what its
// fields mean, kept short because a client puts them in the model's
// context. The documents themselves are defined by the library (audit,
// aggregate, provenance); a test validates every tool's output against
// these schemas.

const auditOutput = `{
  "type": "object",
  "description": "The audit document of ctx audit --format json.",
  "required": ["agent", "estimator", "sources", "findings", "total", "thresholds"],
  "properties": {
    "agent": {"type": "string"},
    "estimator": {"type": "string", "description": "how tokens are counted"},
    "sources": {"type": "array", "description": "instruction sources in order: id, kind, delivery, status, included, reason (the decision), chars, lines, tokens, emitted_tokens, truncated, budget, omitted_chars, omitted_lines, path", "items": {"type": "object"}},
    "files": {"type": "array", "description": "aggregated files: path, view_mode, status, source_tokens, emitted_tokens, error, fallback, degraded", "items": {"type": "object"}},
    "findings": {"type": "array", "description": "source_id, code, severity (info, warning, error), related_id, message", "items": {"type": "object"}},
    "total": {"type": "object", "description": "bytes, chars, lines and tokens of the rendered context"},
    "native": {"type": "object", "description": "what the agent loads by itself: files, bytes, tokens, conditional"},
    "thresholds": {"type": "object", "description": "layer_tokens and total_tokens; null is no limit"}
  }
}`

const renderOutput = `{
  "type": "object",
  "required": ["text", "tokens", "total_tokens", "estimator", "truncated", "notes"],
  "properties": {
    "text": {"type": "string", "description": "the context text, cut at max_tokens when truncated"},
    "tokens": {"type": "integer", "description": "tokens of text"},
    "total_tokens": {"type": "integer", "description": "tokens of the whole context"},
    "estimator": {"type": "string"},
    "truncated": {"type": "boolean"},
    "notes": {"type": "array", "items": {"type": "string"}, "description": "what was cut, what was redacted and where, content from outside the project"}
  }
}`

const packOutput = `{
  "type": "object",
  "required": ["markdown", "items", "screenshots", "ignored", "summary", "notes"],
  "properties": {
    "markdown": {"type": "string", "description": "the document, as ctx aggregate --stdout --no-history prints it"},
    "items": {"type": "array", "description": "one row per file, as in ctx aggregate --format json without the text: path, view_mode, requested_view_mode, status (ok, error, binary, omitted), degraded (what the token budget did), fallback, error, source and emitted sizes", "items": {"type": "object"}},
    "screenshots": {"type": "array", "items": {"type": "object"}},
    "ignored": {"type": "array", "description": "what the default ignore list left out: path, dir, pattern", "items": {"type": "object"}},
    "summary": {"type": "object", "description": "files, tokens, estimator, degraded, omitted, budget, errors, binary, excluded, largest, ignored"},
    "notes": {"type": "array", "items": {"type": "string"}, "description": "the run's summary, the limits applied, what was redacted and where"}
  }
}`

const verifyOutput = `{
  "type": "object",
  "description": "The report of ctx verify --format json.",
  "required": ["agent", "project_dir", "paths", "rows", "drifted"],
  "properties": {
    "agent": {"type": "string"},
    "project_dir": {"type": "string"},
    "paths": {"type": "string", "enum": ["relative", "absolute"]},
    "rows": {"type": "array", "description": "kind, id, path, state (unchanged, changed, missing, appeared, new, removed), old_status, new_status, old_hash, new_hash, note", "items": {"type": "object"}},
    "drifted": {"type": "integer", "description": "rows that are not unchanged"}
  }
}`

const statsOutput = `{
  "type": "object",
  "description": "The document of ctx stats --format json: the total and one of dirs (the default), top or tree.",
  "required": ["total"],
  "properties": {
    "total": {"type": "object", "description": "files, lines, symbols, bytes, tokens of every file read"},
    "dirs": {"type": "array", "description": "directories with their subtree totals and their own files (entries)", "items": {"type": "object"}},
    "top": {"type": "array", "description": "the files with the most tokens", "items": {"type": "object"}},
    "tree": {"type": "object", "description": "the token tree: name, path, dir, totals, children, folded"}
  }
}`
