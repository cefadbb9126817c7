import type { AdmittedInput } from "@awr/awr-ledger/catalog";
import type { WorkstreamAccess } from "@awr/awr-ledger/workstreams";

/** Who is calling: the registry client id over HTTP, `"stdio"` on stdio. */
export interface LedgerCaller {
  readonly client: string;
}

export interface LedgerCallOptions {
  signal?: AbortSignal;
  /** The caller's workstream grants on this project (the shared service, registry v2). */
  workstreamAccess?: WorkstreamAccess | undefined;
}

/**
 * What awr-server needs from an open AWR ledger: one entry point for every catalog tool (the
 * server has admitted the arguments against the tool's schema; the ledger dispatches them
 * without checking them again), the shared service's workstream boundary, and
 * close(). `@awr/awr-ledger`'s ledger (through the default backend) satisfies it; tests may pass
 * a stand-in.
 */
export interface LedgerPort {
  execute(
    tool: string,
    input: AdmittedInput,
    caller: LedgerCaller,
    options?: LedgerCallOptions,
  ): Promise<Record<string, unknown>>;
  /**
   * Refuses project tool `tool` over the shared service where workstreams bound the project or
   * the caller (the ledger's assertProjectToolAllowed); absent: nothing is bounded.
   */
  assertProjectToolAllowed?(
    tool: string,
    access: WorkstreamAccess | undefined,
    options?: { signal?: AbortSignal },
  ): Promise<void>;
  close(): Promise<void>;
}

/** Opens the ledger of an initialised project root. The caller has checked initialisation. */
export type LedgerOpener = (
  root: string,
  options?: { signal?: AbortSignal },
) => Promise<LedgerPort>;
