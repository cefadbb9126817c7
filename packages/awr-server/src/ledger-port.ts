/** Who is calling: the registry client id over HTTP, `"stdio"` on stdio. */
export interface LedgerCaller {
  readonly client: string;
}

/**
 * What awr-server needs from an open AWR ledger: one entry point for every catalog tool (the
 * ledger checks the arguments and dispatches) and close(). `@awr/awr-ledger`'s Ledger satisfies
 * it as it is; tests may pass a stand-in.
 */
export interface LedgerPort {
  execute(
    tool: string,
    input: Record<string, unknown>,
    caller: LedgerCaller,
    options?: { signal?: AbortSignal },
  ): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** Opens the ledger of an initialised project root. The caller has checked initialisation. */
export type LedgerOpener = (
  root: string,
  options?: { signal?: AbortSignal },
) => Promise<LedgerPort>;
