// Package history builds the chat history an agent sends to its model, and
// says exactly what it left out and why.
//
// It is a Go port of Chatbox's context builder (src/shared/context:
// builder.ts, rounds.ts, compaction-points.ts, types.ts, and
// context-pressure.ts), which reads messages in Chatbox's storage format.
// With default options [Build] gives the same messages as the original,
// byte for byte; each known weak point of the original can be fixed with an
// option (see "Fixes").
//
// # Using it
//
// Decode or build a []Message, choose the options, call [Build]:
//
//	res, err := history.Build(ctx, msgs, history.Options{
//		AttachmentResolver:     resolver, // reads attachment content
//		ToolCleanupMode:        history.CleanupStubOldResults,
//		MaxContextMessageCount: measure.Max(50),
//	})
//
// res.Messages are deep copies, ready to send; the input is never changed.
// res.Report lists every dropped message with its reason, every stubbed tool
// result, every attachment with its status, and token estimates before and
// after. [Section] renders the result as the Discussion History section of
// ctx's rendered context ([Markdown] is its body). [DecodeRequest] and
// [ReadRequestFile] read the command's input document strictly.
//
// Every limit (MaxContextMessageCount, MaxContextTokens,
// MaxErrorResultChars, MaxInlineBytes) is a measure.Limit whose zero value
// is no limit and measure.Max(0) a limit of zero, and the zero Options
// reproduce the original with no tool cleanup. [CleanupAuto] decides
// whether old tool results should be stubbed: Build measures the selection
// with [Pressure] and applies [PressureLevel.ToolCleanupMode], recording the
// assessment in the report.
//
// # Pipeline
//
// Build runs the original's five steps, then the optional token budget:
//
//  1. Order and eligibility. A user message marked steered moves before the
//     assistant message it follows (looking back over summary messages)
//     unless that assistant's finishReason is "steered" or it is the first
//     message; the move is idempotent. Messages still generating and fork
//     markers are dropped ("not-eligible").
//  2. Compaction. Of the compaction points whose summary and boundary are
//     both present, the one with the largest createdAt applies (the first on
//     a tie). The context is then the summary followed by the non-summary
//     messages after the boundary ("before-compaction" for the rest), with
//     the first system message put in front if it is not there. Without an
//     applicable point every summary is dropped ("unused-summary"). Then
//     messages with error or errorCode are dropped ("error"), before the
//     limit, so they never use its slots.
//  3. Message count limit. A leading system message is pinned. With
//     max = MaxContextMessageCount and eff = max+1 (the +1 is the current
//     input), when more than eff messages remain, whole chunks of
//     max(1, ceil(eff/4)) are dropped from the front ("over-message-limit"),
//     so the start of the request, and the provider's prompt cache, stays put
//     for several turns.
//  4. Tool cleanup. With CleanupStubOldResults, counting back from the end,
//     an assistant message opens a round and the user message before it
//     closes it; tool-call parts in state "result" in messages before the
//     KeepToolCallRounds-th round (default 2; 0 means all) are stubbed,
//     except in PreserveToolCallMessageIDs. The stub keeps the call and
//     replaces the result with
//     {"_cleared":true,"fullResultFileKey":<resultStorageKey>,"note":"Old tool result cleared to save context space. Use the read_file tool with fullResultFileKey to re-read it if needed."}
//     or, without a storage key,
//     {"_cleared":true,"note":"Old tool result cleared to save context space. Call the tool again if this result is needed."},
//     and removes resultStorageKey. Args longer than 2000 characters when
//     serialized become {"_cleared":true,"preview":<first 500>,"note":"Args truncated together with the cleared result."}.
//     Args are serialized as JSON.stringify(JSON.parse(args)) would be:
//     array-index keys ("0", "1", ...) first in ascending order, and a
//     duplicate key once, with its last value at its first place.
//     Error results are left alone.
//  5. Attachments. Each message's files, then links, are numbered from 1
//     and appended as <ATTACHMENT_FILE> blocks (FILE_INDEX, FILE_NAME,
//     FILE_KEY, FILE_LINES, FILE_SIZE, FILE_CONTENT) to the first text part.
//     With ModelSupportToolUseForFile, content over 500 lines is cut to its
//     first 100 lines with a TRUNCATED note, and a file with only a local
//     path gets a tool-only block with key local:<path>. Session-retrieval
//     files get a retrieval block and are not read. An attachment that
//     cannot be read, or is empty, is left out and uses no index. In
//     SandboxMode nothing is read: each file gets a metadata block with its
//     SANDBOX_PATH ([SandboxPath]) and a size label ("512B", "1.3KB",
//     "3.0MB"), and links are not injected.
//
// Finally, with MaxContextTokens, the oldest messages that are neither
// pinned nor last are dropped ("over-token-budget") until the estimate of
// the output fits; if even the pinned messages and the last message exceed
// the budget, Build fails with [ErrTokenBudget].
//
// # Shapes
//
// [DecodeRequest] reads the messages in three shapes, which may be mixed
// in one list; Build then works on the converted messages.
//
//   - Chatbox's storage format: a message with "contentParts" (a legacy
//     "content" beside it is kept in Extra, not sent), or with neither
//     "contentParts" nor "content". Its role must be system, user,
//     assistant or tool.
//   - The content shape, a message with "content" (or OpenAI's
//     "tool_calls" or "tool_call_id") and no "contentParts": Manual Slop's
//     {"role", "content"} entries and the messages of the OpenAI and
//     Anthropic APIs. The role is kept as written ("User", "AI"); a
//     missing or empty role is "Unknown" ([RoleUnknown]), as Manual Slop's
//     build_discussion_section has it. An entry with a role Chatbox does
//     not know and nothing else ({"role": "User"}, no id, no
//     contentParts) is this shape with empty content ("User: "), as the
//     original's entry.get("content", "") reads it. A string content is one text
//     part; null is none; an array of typed parts is converted part by
//     part: text, input_text, output_text and refusal to text parts,
//     thinking to a reasoning part, image_url, input_image and image (by
//     URL or file id) to image parts whose storage key is the URL or id,
//     tool_use and OpenAI's tool_calls to tool-call parts, and a
//     tool_result, or an OpenAI tool message, to the result of the call it
//     answers (state result, or error with is_error), in the earlier
//     message that holds the call; a message that carried only tool
//     results is then not kept. A result whose content is a list of text
//     parts is the string of their texts joined by newlines (what the list
//     means, and what a string content gives); a list with other parts
//     (an image) stays compact JSON. Keys a part does not use are kept in its
//     Extra. Any other part (documents, audio, inline image data,
//     redacted thinking), a result for a call no earlier message made, or
//     OpenAI's deprecated function_call is an error that names the
//     message and the part: no text is ever dropped silently.
//   - A legacy string ("User: hello"): a message without a role whose one
//     text part is the string. [Markdown] shows it as it is.
//
// Roles other than Chatbox's four take no part in the rules that look at
// roles (the pinned system message, steering, tool rounds). Build's
// output is Chatbox's format, so a history in the content shape with other
// roles is written with those roles.
//
// # Tokens
//
// Token counts use measure.Default() (ceiling of characters / 4) unless
// Options.Estimator says otherwise, applied to [MessageText]: text and
// reasoning parts, an image's OCR text, and each tool call's name, args and
// result as compact JSON, one piece per line. Info parts are UI-only and not
// counted. Report.TokensBefore measures the input as given (without
// attachment content), Report.TokensAfter the output (with it). Cached
// counts (tokenCount, tokenCountMap) are never used.
//
// # Pressure
//
// [Pressure] reproduces the original's thresholds: with window w (default
// 128000) and threshold t (default 0.6), available = max(w-32000,
// floor(w*0.5)), compaction threshold = floor(available*t), stub threshold
// = floor(compaction threshold*0.8). At or above the stub threshold the
// level is stub-old-results; above the compaction threshold it is compact
// (a summary is due; writing one needs a model and is not done here). For
// 128k that is 46080 and 57600 tokens; for 8192, 1965 and 2457.
//
// # Fixes
//
// Each weak point of the original has an option. The default keeps the
// original, except for negative limits, which are plainly broken and
// rejected. [Options.WithFixes] turns every fix on.
//
//   - The limit can drop the compaction summary and cut a round in half:
//     PinSummary pins the applied summary like the system message;
//     CutAtRoundBoundary moves the cut forward to the next user message.
//     Off by default, because the original's window is also what keeps the
//     provider's prompt cache stable.
//   - The limit counts messages only: MaxContextTokens adds a token budget
//     on the final output (attachments included). Negative values of
//     MaxContextMessageCount, KeepToolCallRounds or any other limit are
//     rejected with [ErrNegativeLimit]; LegacyNegativeLimits restores the
//     original, where a negative count silently drops everything but the
//     system message and a negative round count disables stubbing.
//   - NoLargerStubs keeps a result whose stub would not be smaller;
//     MaxErrorResultChars bounds error results (in every message, in any
//     mode) to a {"_truncated":true,"preview":...,"note":...} object;
//     KeepCurrentTurn never stubs results from the last user message on,
//     which the original does with KeepToolCallRounds 0.
//   - AttachmentAsOwnPart appends the blocks as a new text part (without the
//     leading blank line) and leaves every other part in place. The original
//     appends them to the first text part, moves non-text parts before it
//     and drops the other text parts; this is kept by default for byte
//     compatibility.
//   - EscapeEnvelope XML-escapes FILE_NAME, FILE_KEY and the retrieval
//     fields, as the original already does in sandbox blocks, and turns the
//     "<" of any envelope tag inside attachment content (ATTACHMENT_FILE,
//     FILE_CONTENT, SYSTEM_REMINDER and the others, any case, opening or
//     closing) into "&lt;", so content cannot close its envelope or forge a
//     block. Other text, code included, is left as it is.
//   - FileSizeInBytes reports FILE_SIZE in UTF-8 bytes; the original counts
//     UTF-16 code units and calls them bytes. FILE_LINES stays the
//     original's count of "\n"-separated pieces ("a\n" is 2).
//   - MaxInlineBytes cuts content to a byte size at a character boundary,
//     with a TRUNCATED note, with or without tool use: the line cap alone
//     lets a one-line 5 MB file through whole.
//   - MarkMissingAttachments writes a block with a MISSING note, and an
//     index, for an attachment that is missing, empty or failed to read.
//   - Pressure counts the real text, never cached counts defaulting to 0.
//   - Attachments are read at most ReadConcurrency at a time (default 4),
//     once per key, and every read's outcome, errors included, is in the
//     report; the original read everything at once and swallowed errors.
//
// # Attachments
//
// An [AttachmentResolver] returns the content for a storage key, or an error
// wrapping [ErrNotFound]. [DirResolver] reads files from a directory, keyed
// by storage key as a relative slash path; it refuses absolute paths, "..",
// backslashes and symbolic links leading out of the directory, bounds its
// concurrent reads and the size of a file. [MapResolver] serves a map.
//
// # Markdown
//
// [Markdown] writes "### Discussion Excerpt {i}\n\n{role}: {content}" per
// message ("{content}" alone for a message without a role), joined by
// "\n\n---\n\n". The content is the parts joined by
// "\n\n" and stripped: text and reasoning as they are, images as
// "[image: {storageKey}]", tool calls as "[tool call {name} {args}]" then
// "[tool result] {result}", "[tool error] {result}" or "[tool call
// pending]", all JSON compact. Info parts are not shown.
//
// # JSON
//
// Types use the original's field names. Keys this package does not know
// are kept in the Extra maps and written back after the known keys, sorted,
// so a history in a newer format passes through. Encoding is deterministic.
// Args, result, values and tokenCountMap are raw JSON, kept byte for byte
// (compacted on output) unless a stub replaces them. Optional strings and
// numbers use the zero value for "absent": a stored "" or 0 is written back
// without the key, and treated as absent ("storageKey": "" falls back to the
// id where the original would use ""). A message always has
// "contentParts", [] when empty; text, info and reasoning parts always have
// "text"; image parts "storageKey"; tool-call parts "state", "toolCallId"
// and "toolName".
//
// # Differences
//
// Besides the fixes, which are all off by default, the port differs from
// the original only where the original's behaviour cannot be represented or
// is a plain defect:
//
//   - An args preview that would end inside a UTF-16 surrogate pair stops
//     one unit short, since a lone surrogate cannot be valid UTF-8.
//   - A compaction point whose summary message is not marked isSummary and
//     comes after the boundary lists that message once, where the original
//     lists it twice (and counts it twice against the message limit, so
//     the sticky window can start elsewhere).
//   - Invalid UTF-8 in attachment content is replaced with U+FFFD.
package history
