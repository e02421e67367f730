// Sample TypeScript module.
import type { Request } from "./types";

export interface Options {
  url: string;
  retries?: number;
}

export type Handler = (req: Request) => Promise<void>;

export enum Level {
  Low,
  High,
}

namespace Util {
  export function clamp(x: number, lo: number, hi: number): number {
    return Math.min(Math.max(x, lo), hi);
  }
}

@Component({ selector: "app" })
export class Service<T> implements Runner {
  private cache = new Map<string, T>();

  constructor(private readonly opts: Options) {}

  /** Runs the service. */
  public async run(input: T): Promise<T> {
    return input;
  }

  abstract stop(): void;

  static create(): Service<number> {
    return new Service({ url: "" });
  }
}

export default function handler(req: Request): void {
  console.log("```", req);
}

export const double = (n: number): number => n * 2;
