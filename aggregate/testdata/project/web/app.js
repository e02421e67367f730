import { render } from "./view.js";

/** Counts clicks. */
export class Counter {
  constructor() {
    this.n = 0;
  }
  click() {
    this.n += 1;
    render(this.n);
  }
}

export function double(x) {
  return x * 2;
}

const triple = (x) => x * 3;
