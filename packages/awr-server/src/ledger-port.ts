import type { WorkstreamAccess } from "@awr/awr-ledger";
import type { LedgerMethod } from "./tools/tool-definition.js";

/** Who is calling: the registry client id over HTTP, `"stdio"` on stdio (TOOLS.md). */
export interface LedgerCaller {
  readonly client: string;
}

export type LedgerCall = (
  input: Record<string, unknown>,
  caller: LedgerCaller,
  options?: { signal?: AbortSignal },
) => Promise<unknown>;

/**
 * What awr-server needs from an open AWR ledger: one method per project tool, the workstream
 * read and its guard, and close(). `@awr/awr-ledger`'s ledger satisfies it; tests may
 * pass a fake.
 */
export type LedgerPort = { readonly [M in LedgerMethod]: LedgerCall } & {
  close(): Promise<void>;
  /** awr_workstream for a caller with `access` (the ledger's workstreamRead); absent: Unsupported. */
  workstream?(
    input: Record<string, unknown>,
    access: WorkstreamAccess | undefined,
    options?: { signal?: AbortSignal },
  ): Promise<Record<string, unknown>>;
  /** Refuses project tool `tool` where workstreams bound the project (assertProjectToolAllowed). */
  assertProjectToolAllowed?(
    tool: string,
    access: WorkstreamAccess | undefined,
    options?: { signal?: AbortSignal },
  ): Promise<void>;
};

/** Opens the ledger of an initialised project root. The caller has checked initialisation. */
export type LedgerOpener = (
  root: string,
  options?: { signal?: AbortSignal },
) => Promise<LedgerPort>;
