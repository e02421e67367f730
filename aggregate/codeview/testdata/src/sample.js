// Sample JavaScript module.
import { readFile } from "node:fs/promises";
const path = require("path");

export const VERSION = "1.0";

/**
 * A client for the API.
 */
export class Client extends Base {
  static count = 0;

  constructor(url) {
    super();
    this.url = url;
  }

  /** Sends a request. */
  async send(payload) {
    const inner = () => {
      return payload;
    };
    return inner();
  }

  get host() {
    return new URL(this.url).host;
  }
}

function helper(a, b) {
  return a + b;
}

export async function main() {
  const c = new Client("http://x");
  await c.send("```");
}

const arrow = (x) => {
  return x * 2;
};

function* gen() {
  yield 1;
}

module.exports = { helper, arrow };
main();
