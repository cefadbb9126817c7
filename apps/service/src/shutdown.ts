const SIGNALS = ["SIGTERM", "SIGINT"] as const;
/** Exit codes of an immediate stop on a second signal (128 + signal number). */
const FORCED_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;

/**
 * The first SIGTERM or SIGINT asks for a graceful stop (`requested` resolves and `begin` runs);
 * a second one exits at once with a non-zero code, for an operator who will not wait.
 */
export function onShutdownSignals(
  log: (line: string) => void,
  begin: () => Promise<void>,
): { requested: Promise<void>; dispose(): void } {
  let resolveRequested!: () => void;
  const requested = new Promise<void>((resolve) => {
    resolveRequested = resolve;
  });
  let seen = false;
  const handler = (signal: (typeof SIGNALS)[number]) => {
    if (seen) {
      log(`${signal} again: exiting now`);
      process.exit(FORCED_EXIT[signal]);
    }
    seen = true;
    log(`${signal}: finishing in-flight calls, then stopping (send it again to exit now)`);
    resolveRequested();
    void begin();
  };
  for (const signal of SIGNALS) process.on(signal, handler);
  return {
    requested,
    dispose() {
      for (const signal of SIGNALS) process.off(signal, handler);
    },
  };
}
