// Package observe shows what a coding agent really sends to its model: a
// proxy on the loopback address that the agent is pointed at through its
// own base-URL setting, which forwards each request to the real endpoint
// (or, in mock mode, answers it in the agent's own wire format), and cuts
// each request into segments that add up to its bytes: the built-in system
// prompt, each tool schema (those of MCP servers grouped by server), each
// instruction file attributed to the file on disk by its bytes (whole, cut
// at byte N, or changed), environment and reminders, skills and memory, the
// conversation, and the JSON framing.
//
// A [Record] is what one session sent; [Compare] holds the files of the
// session's turn against what ctx predicts for the agent (a
// profile.Chain).
//
// # Safety
//
// The proxy listens on the loopback address only. Credentials (the
// Authorization, x-api-key and x-goog-api-key headers, key= parameters)
// are forwarded and never recorded; a record holds the sizes and BLAKE3
// hashes of the files, never their text.
package observe
