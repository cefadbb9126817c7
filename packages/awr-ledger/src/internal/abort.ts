/** Rejects with `signal.reason` unchanged when the signal is already aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason;
}

/** Sleeps `ms`, rejecting with `signal.reason` unchanged if the signal aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** `signal`, also aborted when `closing` is (a ledger that closes stops its long work). */
export function untilClosed(
  signal: AbortSignal | undefined,
  closing: AbortSignal | undefined,
): AbortSignal | undefined {
  if (closing === undefined) return signal;
  return signal === undefined ? closing : AbortSignal.any([signal, closing]);
}
