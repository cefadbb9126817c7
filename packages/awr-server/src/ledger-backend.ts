import type { LedgerOpener, LedgerPort } from "./ledger-port.js";

/**
 * How awr-server reaches ledgers. The app composes it (it owns the database drivers):
 * `readIdentity` answers a root's project_id, or null when the root is not initialised, and
 * must create nothing; `open` opens an initialised project's ledger.
 */
export interface LedgerBackend {
  readonly readIdentity: IdentityReader;
  readonly open: LedgerOpener;
  /**
   * The identity of the project at `root` for a ledger opened from it, cheap enough to run on
   * every call; null when the root no longer holds that ledger. Without it, readIdentity is used.
   */
  readonly checkIdentity?: (
    root: string,
    ledger: LedgerPort,
    options?: { signal?: AbortSignal },
  ) => Promise<{ project_id: string } | null>;
}

/** Reads a project's identity; `null` when the root holds no initialised AWR ledger. */
export type IdentityReader = (
  root: string,
  options?: { signal?: AbortSignal },
) => Promise<{ project_id: string } | null>;
