/**
 * Lets timers and I/O of other work run before continuing: long loops on the main thread (a
 * large reindex) await this every few hundred steps, so one project's indexing cannot hold up
 * another project's reads in the same process. `setImmediate` runs after pending I/O callbacks,
 * unlike a resolved promise, which would keep the loop in the microtask queue.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
