import { CLI_ERROR_CODES, CliError, EXIT_CODES } from "./cli-error.js";
import type { Colors, OutputStream } from "./output/style.js";

/**
 * What to do next, per domain code, appended to the service's or ledger's own message in human
 * output (the JSON form carries the message unchanged). Messages already name the problem.
 */
const NEXT_STEP: Record<string, string> = {
  RevisionConflict:
    "Someone else changed the project. Look at the current state (awr status), then retry without --expected-revision or with the new revision.",
  SourceStale:
    "The planning sources changed since the last index: run `awr source reindex`, then retry.",
  SourceConflict:
    "A source file or request id conflicts: check the file (awr source list) or use a new --request-id.",
  ClaimConflict:
    "Another session holds the claim: wait for it to be released, or work on something else (awr ready).",
  DependencyBlocked: "Finish the required dependencies first (awr work show WORK lists them).",
  EvidenceMissing: "Record the evidence first (awr evidence add …), then map it with --criterion.",
  InvalidTransition:
    "Check the item's status and pending waits (awr work show WORK, awr session show).",
  NotFound: "Check the id (awr ready, awr search TEXT, awr session list).",
  BudgetExceeded: "Raise --budget or narrow the request (--path, --tag, --goal).",
  [CLI_ERROR_CODES.RemoteError]:
    "Check --url, that the service runs, and the token in --token-env.",
};

/** Turns anything thrown during a run into a CliError; domain errors keep their code. */
export function toCliError(error: unknown): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof Error) {
    const { code, details } = error as Error & { code?: unknown; details?: unknown };
    if (
      (error.name === "LedgerError" || error.name === "AwrToolError") &&
      typeof code === "string"
    ) {
      return new CliError(code, error.message, {
        cause: error,
        ...(isRecord(details) ? { details } : {}),
      });
    }
    return new CliError(CLI_ERROR_CODES.Internal, error.message || String(error), { cause: error });
  }
  return new CliError(CLI_ERROR_CODES.Internal, String(error));
}

export function cancelledError(reason: unknown): CliError {
  const why = reason instanceof Error && reason.message ? `: ${reason.message}` : "";
  return new CliError(
    CLI_ERROR_CODES.Cancelled,
    `Interrupted${why}. A write that was in flight may or may not have happened: check with \`awr operation get REQUEST_ID\` when you gave --request-id.`,
    { exitCode: EXIT_CODES.interrupted, cause: reason },
  );
}

/** Prints an error: `{code, message, details?}` as one JSON line under --json, else prose. */
export function writeError(
  error: CliError,
  stream: OutputStream,
  json: boolean,
  colors: Colors,
): void {
  if (json) {
    stream.write(`${JSON.stringify(error.toPayload())}\n`);
    return;
  }
  const label = error.code === CLI_ERROR_CODES.UsageError ? "usage error" : `error [${error.code}]`;
  stream.write(`${colors.red(colors.bold(label))}: ${error.message}\n`);
  if (error.details !== undefined && error.code !== CLI_ERROR_CODES.UsageError) {
    for (const [key, value] of Object.entries(error.details)) {
      stream.write(
        `  ${colors.dim(key)}: ${typeof value === "string" ? value : JSON.stringify(value)}\n`,
      );
    }
  }
  const next = NEXT_STEP[error.code];
  if (next) stream.write(`${colors.cyan("next")}: ${next}\n`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
