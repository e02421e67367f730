// Counts the tokens of every file of a corpus directory with OpenAI's
// tiktoken (the npm package: WASM bindings of the official Rust crate) and
// prints them as JSON: the whole file and each line ("\n" included), for
// o200k_base and cl100k_base, encoding ordinary text (special tokens such as
// <|endoftext|> are text). Run by measure's TestTokensReference:
//
//   NODE_PATH=DIR/node_modules node reference.cjs CORPUS_DIR
'use strict';
const fs = require('fs');
const path = require('path');
const { get_encoding } = require('tiktoken');

// the package does not export its package.json: find it beside the module
function version() {
  let d = path.dirname(require.resolve('tiktoken'));
  for (;;) {
    const f = path.join(d, 'package.json');
    if (fs.existsSync(f)) return JSON.parse(fs.readFileSync(f, 'utf8')).version;
    const up = path.dirname(d);
    if (up === d) return 'unknown';
    d = up;
  }
}

const dir = process.argv[2];
const encodings = ['o200k_base', 'cl100k_base'];
const encs = Object.fromEntries(encodings.map((e) => [e, get_encoding(e)]));
const files = {};
for (const name of fs.readdirSync(dir).sort()) {
  // Buffer#toString keeps a byte order mark, as the Go side does
  const text = fs.readFileSync(path.join(dir, name)).toString('utf8');
  const lines = text === '' ? [] : text.split(/(?<=\n)/);
  const counts = {};
  for (const e of encodings) {
    counts[e] = {
      total: encs[e].encode_ordinary(text).length,
      lines: lines.map((l) => encs[e].encode_ordinary(l).length),
    };
  }
  files[name] = counts;
}
for (const e of encodings) encs[e].free();
process.stdout.write(JSON.stringify({ tiktoken: version(), files }, null, 1) + '\n');
