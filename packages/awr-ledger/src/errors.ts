/**
 * The AWR error codes: the 14 of every tool, `Storage` (the database itself failed or is not
 * intact: a doctor finding, a refused repair), then the workstream codes `awr_workstream` answers
 * (docs/compatibility/workstreams.md). One `as const` table; the union type is derived from it.
 * awr-server turns a LedgerError into an MCP tool error result; the CLI prints `{code, message,
 * details?}`. Messages always name the problem and the fix.
 */
export const AWR_ERROR_CODES = {
  NotFound: "NotFound",
  InvalidInput: "InvalidInput",
  RevisionConflict: "RevisionConflict",
  SourceStale: "SourceStale",
  SourceConflict: "SourceConflict",
  DependencyBlocked: "DependencyBlocked",
  ClaimConflict: "ClaimConflict",
  RuleViolation: "RuleViolation",
  EvidenceMissing: "EvidenceMissing",
  MutationConflict: "MutationConflict",
  ContextIncomplete: "ContextIncomplete",
  BudgetExceeded: "BudgetExceeded",
  InvalidTransition: "InvalidTransition",
  Unsupported: "Unsupported",
  /** The database is unreadable or not intact, or `awr doctor` found problems (exit 1). */
  Storage: "Storage",
  /** No grant for the selected workstream, or the work, session or object is not visible. */
  WorkstreamAccessDenied: "WorkstreamAccessDenied",
  /** Several workstreams are granted and nothing selects one: pass `workstream`, `work` or `session`. */
  WorkstreamScopeRequired: "WorkstreamScopeRequired",
  /** `workstream`, `work` and `session` name different workstreams. */
  WorkstreamBindingMismatch: "WorkstreamBindingMismatch",
  /** The grant's authority_version is not the workstream's current one. */
  WorkstreamStaleAuthority: "WorkstreamStaleAuthority",
  /** A grant names a workstream the project does not declare. */
  WorkstreamUnavailable: "WorkstreamUnavailable",
} as const;

export type AwrErrorCode = (typeof AWR_ERROR_CODES)[keyof typeof AWR_ERROR_CODES];

export type LedgerErrorDetails = Record<string, unknown>;

export class LedgerError extends Error {
  override readonly name = "LedgerError";
  readonly code: AwrErrorCode;
  readonly details: LedgerErrorDetails | undefined;
  /**
   * A partial result that comes with the error (a context packet with its gaps, a write whose
   * outcome is unknown): tools answer it as the `isError` body with the error under `error`,
   * the CLI prints it on stdout and the error on stderr.
   */
  result: Record<string, unknown> | undefined;
  /**
   * The one step that fixes this error, for a person, when the code that raises it knows it
   * (tool names in it, such as awr_source_reindex, are turned into commands by the CLI, which
   * prints it as its `next:` line). Not part of the wire form: the message already names the
   * fix for a tool caller. Undefined when the code's usual advice applies.
   */
  readonly next: string | undefined;

  constructor(
    code: AwrErrorCode,
    message: string,
    details?: LedgerErrorDetails,
    options?: { cause?: unknown; result?: Record<string, unknown>; next?: string },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = details;
    this.result = options?.result;
    this.next = options?.next;
  }

  /** The wire shape used by awr-server and the CLI (`{code, message, details?}`). */
  toJSON(): { code: AwrErrorCode; message: string; details?: LedgerErrorDetails } {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

export function isLedgerError(value: unknown, code?: AwrErrorCode): value is LedgerError {
  return value instanceof LedgerError && (code === undefined || value.code === code);
}
