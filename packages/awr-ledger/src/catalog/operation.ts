import type { CallOptions, RuntimeCaller, RuntimeContext } from "../core/runtime-context.js";
import type { LedgerContext } from "../project/ledger-context.js";
import type { WorkstreamAccess } from "../workstreams/workstream-access.js";
import type { CliCommand } from "./cli-spec.js";
import type { JsonSchema, ObjectSchema } from "./json-schema.js";
import type { Variants } from "./validate-input.js";

/**
 * One entry of the operation catalog: everything the MCP server, the CLI and the ledger's own
 * dispatch need to know about an operation, in one place (docs/design/operation-catalog.md).
 */
export interface Operation<I = never, R = unknown, T extends string = string> {
  readonly tool: T;
  readonly kind: "read" | "write";
  readonly freshness: Freshness;
  /**
   * A `sources` read's boolean argument that, when true, reads the last recorded projection
   * instead: no source check or refresh, answered as a runtime read (`object show --cached`).
   */
  readonly cachedBy?: string;
  /** Only a work transition may discard state (cancel, reopen). */
  readonly destructive?: true;
  /** What tools/list says; short (the whole list stays under 24 KiB). */
  readonly description: string;
  /** The arguments, as on stdio; the shared service adds `project` and requires `request_id`. */
  readonly input: ObjectSchema;
  /** The implementation, called with the checked input. */
  readonly run: (
    host: OperationHost,
    input: I,
    caller: RuntimeCaller,
    options: OperationOptions,
  ) => Promise<R>;
  /** The CLI commands that run it (several when a fixed argument picks the variant). */
  readonly cli: readonly CliCommand[];
  /**
   * `workstreams`: offered only by the shared service, and only for a registry that grants
   * workstreams (version 2); stdio and the CLI never list it.
   */
  readonly availability?: "workstreams";
  /**
   * `cli`: a CLI-only operation (branch writes, doctor; docs/compatibility/mcp-protocol.md). It is
   * never on tools/list and a tools/call naming it is an unknown tool (-32601); the CLI and the
   * ledger's own dispatch run it like any entry. Absent: `mcp`, a tool.
   */
  readonly surface?: "mcp" | "cli";
  /**
   * Arguments whose `const` or `enum` the listed schema shows but the implementation checks
   * itself, so another value gets the implementation's answer (awr_workstream: another
   * protocol_version or action is Unsupported, not InvalidInput).
   */
  readonly lenient?: readonly string[];
  /**
   * What the gate checks beyond the listed schema, never listed: stricter schemas for some
   * arguments (replacing the listed ones), and an argument whose schema depends on another's
   * value (awr_workstream's `args` by action).
   */
  readonly checked?: {
    readonly properties?: Readonly<Record<string, JsonSchema>>;
    readonly variants?: Variants;
  };
}

/**
 * How an operation relates to the planning sources:
 * - `sources`: a read of the projection; answers SourceStale when a source changed, unless the
 *   caller asks for a refresh (the CLI's reads: they reindex first);
 * - `refresh`: a write that reindexes changed sources first (expected_revision is checked before
 *   and after, so a write never lands on facts its caller did not see);
 * - `runtime`: runtime state only (sessions, waits, the journal): never looks at the sources,
 *   so it works while they are stale or unreadable;
 * - `scoped`: the operation checks the sources itself and answers in its own envelope, with no
 *   read-policy fields (awr_workstream: `capabilities` answers while the sources are stale).
 */
export type Freshness = "sources" | "refresh" | "runtime" | "scoped";

export interface OperationOptions extends CallOptions {
  /** Reads: reindex changed sources first instead of answering SourceStale (the CLI's reads). */
  refresh?: boolean | undefined;
  /**
   * `awr context compile --branch ID` (the CLI only): compile on this branch (an id, or "main")
   * from the ordinary baseline, where the tool's `branch` argument compiles its delta since the
   * fork (docs/design/work-branches.md).
   */
  contextBranch?: string | undefined;
  /**
   * `awr status --queue Q --offset N --page-size N` (the CLI only): awr_project_status view=action
   * lists that one queue page by page, read from the same snapshot as the totals.
   */
  statusQueue?: string | undefined;
  statusOffset?: number | undefined;
  statusPageSize?: number | undefined;
  /**
   * `awr status|ready|work show --cached` (the CLI only): a `sources` read answers from the last
   * recorded projection, with no source check or refresh; its answer says so
   * (`freshness_basis: "last_recorded_source_state"`, currentness not verified).
   */
  cachedProjection?: boolean | undefined;
  /**
   * `files`: the arguments came from a command line and the files it named, each file bounded on
   * its own (the CLI: an `--input` or `--payload` file up to 1 MiB, a completion map up to
   * 64 KiB), so the 1 MiB bound on a tool call's whole arguments does not apply to them, as the
   * original bounds the two separately. Their depth is bounded all the same. Absent: `call`, the
   * arguments of one tool call, bounded at 1 MiB as MCP bounds them.
   */
  argumentsFrom?: "call" | "files" | undefined;
  /** The caller's workstream grants on this project (the shared service's registry, v2). */
  workstreamAccess?: WorkstreamAccess | undefined;
}

/** What an operation runs against. */
export interface OperationHost {
  readonly runtime: RuntimeContext;
  /** The project's sources; absent for a runtime opened straight on a store (tests). */
  readonly project?: LedgerContext | undefined;
}

/** Declares one catalog entry with its tool name, input and result types. */
export function operation<const T extends string, I, R>(
  entry: Operation<I, R, T>,
): Operation<I, R, T> {
  return entry;
}
