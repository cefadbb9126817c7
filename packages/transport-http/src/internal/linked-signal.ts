/**
 * One signal that aborts when any of `signals` does, with the first reason. Unlike
 * `AbortSignal.any`, `dispose()` detaches it from its sources at once, so a long-lived source
 * (the transport's lifetime, a caller's session-wide signal) does not accumulate dependents.
 */
export interface LinkedSignal {
  signal: AbortSignal;
  /** Aborts the linked signal directly (its sources are untouched). */
  abort(reason: unknown): void;
  /** Detaches from the sources. */
  dispose(): void;
}

export function linkSignals(signals: readonly AbortSignal[]): LinkedSignal {
  const controller = new AbortController();
  const already = signals.find((signal) => signal.aborted);
  if (already) {
    controller.abort(already.reason);
    return { signal: controller.signal, abort: () => {}, dispose: () => {} };
  }
  const listeners = signals.map((source) => {
    const onAbort = () => controller.abort(source.reason);
    source.addEventListener("abort", onAbort, { once: true });
    return () => source.removeEventListener("abort", onAbort);
  });
  const dispose = () => {
    for (const remove of listeners) remove();
  };
  controller.signal.addEventListener("abort", dispose, { once: true });
  return { signal: controller.signal, abort: (reason) => controller.abort(reason), dispose };
}
