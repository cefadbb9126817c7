/**
 * A tiny typed event hub: `on` returns the unsubscribe function. A listener that throws is
 * reported to `onListenerError` and does not stop the others (a host's bug must not break the
 * connection that is delivering the event).
 */
type Listener = (...args: unknown[]) => void;

export class ListenerSet<Events extends { [K in keyof Events]: unknown[] }> {
  readonly #listeners = new Map<keyof Events, Set<Listener>>();
  readonly #onListenerError: (error: unknown, event: keyof Events) => void;

  constructor(onListenerError: (error: unknown, event: keyof Events) => void = () => {}) {
    this.#onListenerError = onListenerError;
  }

  on<K extends keyof Events>(event: K, listener: (...args: Events[K]) => void): () => void {
    let set = this.#listeners.get(event);
    if (!set) {
      set = new Set();
      this.#listeners.set(event, set);
    }
    set.add(listener as unknown as Listener);
    return () => {
      set.delete(listener as unknown as Listener);
    };
  }

  emit<K extends keyof Events>(event: K, ...args: Events[K]): void {
    const set = this.#listeners.get(event);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        (listener as unknown as (...a: Events[K]) => void)(...args);
      } catch (error) {
        this.#onListenerError(error, event);
      }
    }
  }

  clear(): void {
    this.#listeners.clear();
  }
}
