// Drives `ctx mcp` with the official TypeScript SDK (@modelcontextprotocol/sdk),
// a client nobody in this repository wrote: it starts the server over stdio,
// lists the tools, calls audit and prints what it got as one JSON object:
//
//   node audit.cjs CTX_BINARY PROJECT_DIR
//
// The SDK validates the structured content against the tool's output schema
// as it receives it. "structured" is the structured content serialised as
// `ctx audit --format json` serialises the document (two-space indentation
// and a final newline), so the Go test compares it with the command's bytes.
"use strict";

const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

async function main() {
  const [bin, dir] = process.argv.slice(2);
  if (!bin || !dir) {
    throw new Error("usage: node audit.cjs CTX_BINARY PROJECT_DIR");
  }
  const transport = new StdioClientTransport({
    command: bin,
    args: ["mcp", "-C", dir],
    env: process.env,
    stderr: "inherit",
  });
  const client = new Client({ name: "ctx-ts-test", version: "1.0.0" });
  await client.connect(transport);
  const version = client.getServerVersion();
  const { tools } = await client.listTools();
  const res = await client.callTool({ name: "audit", arguments: {} });
  const bad = await client.callTool({ name: "pack", arguments: { paths: ["../x"] } });
  await client.close();
  process.stdout.write(
    JSON.stringify({
      server: version.name,
      tools: tools.map((t) => t.name).sort(),
      isError: Boolean(res.isError),
      text: res.content.map((c) => c.text).join(""),
      structured: JSON.stringify(res.structuredContent, null, 2) + "\n",
      badIsError: Boolean(bad.isError),
      badText: bad.content.map((c) => c.text).join(""),
    }),
  );
}

main().catch((err) => {
  console.error(err && err.stack ? err.stack : err);
  process.exit(1);
});
