import type { ChildProcess } from "node:child_process";
import type { ProcessExit } from "../process-exit.js";

/** Resolves true when `promise` settles first, false after `ms` milliseconds. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true as const), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** Remembers how a child exited and lets callers wait for it with a bound. */
export class ChildExit {
  #status: ProcessExit | undefined;
  #markExited: () => void = () => {};
  readonly #exited = new Promise<void>((resolve) => {
    this.#markExited = resolve;
  });

  /** Register before any other "exit" listener, so they all see the status. */
  constructor(child: ChildProcess) {
    child.once("exit", (code, signal) => {
      this.#status = { code, signal };
      this.#markExited();
    });
  }

  get status(): ProcessExit | undefined {
    return this.#status;
  }

  /** True once the child has exited, false if it was still running after `ms` milliseconds. */
  wait(ms: number): Promise<boolean> {
    return this.#status ? Promise.resolve(true) : settlesWithin(this.#exited, ms);
  }
}
