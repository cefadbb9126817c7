let chain: Promise<unknown> = Promise.resolve();

/**
 * Loads an operation's module on first use without letting calls overtake one another: each load
 * waits for the loads asked for before it, so calls reach their implementations in the order they
 * were made (a module already loaded resolves at once). Heavy modules stay off start-up.
 */
export function loadInOrder<T>(load: () => Promise<T>): Promise<T> {
  const loaded = chain.then(load);
  chain = loaded.catch(() => undefined);
  return loaded;
}
