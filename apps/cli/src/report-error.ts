import { findOperation } from "@awr/awr-ledger/catalog";
import { CLI_ERROR_CODES, CliError, EXIT_CODES } from "./cli-error.js";
import type { Colors, OutputStream } from "./output/style.js";

/**
 * What to do next, per code, after the error in human output (the JSON form carries the message
 * unchanged), for an error that does not carry its own step (CliError.next, LedgerError.next).
 * Messages already name the problem; these name the CLI command for the fix. A code is listed
 * only where one step fits all its errors that carry none: NotFound's is for an unknown id (an
 * uninitialised project or a missing file carries its own step), and RuleViolation has none,
 * its errors being too different (another client's session, a credential, a path that leaves
 * the project, a read-only service token). Without a step that fits, no `next:` line is printed.
 */
const NEXT_STEP: Record<string, string> = {
  RevisionConflict:
    "Someone else changed the project. Look at the current state (awr status), then retry without --expected-revision or with the new revision.",
  SourceStale:
    "The planning sources changed since the last index: run `awr source reindex`, then retry.",
  SourceConflict:
    "A source file, an evidence key or a request id is taken: check the file (awr source list), or use a new --request-id or external key.",
  DependencyBlocked: "Finish the required dependencies first (awr work show WORK lists them).",
  EvidenceMissing:
    "Record the evidence first (awr evidence add --input FILE), then map it in the completion file (--input).",
  InvalidTransition:
    "Check the item's status and pending waits (awr work show WORK, awr session show --conversation C).",
  NotFound: "Check the id (awr ready, awr search TEXT, awr session list).",
  BudgetExceeded: "Raise --budget or narrow the request (--path, --tag, --goal).",
  ContextIncomplete:
    "Close the gaps at their source (acceptance, rules, dependencies) and run `awr source reindex`, or give an existing work key (awr ready, awr search TEXT).",
  Storage:
    "Inspect the findings (awr doctor, or awr doctor --json); apply one named repair (awr doctor repair ACTION ID --reason TEXT) where one is suggested, or restore the database from a backup if it is damaged.",
  [CLI_ERROR_CODES.RemoteError]:
    "Check --url, that the service runs, and the token in --token-env.",
  [CLI_ERROR_CODES.NotInitialised]:
    "Run `awr init --accept` in the project's root (without --accept it previews, writing nothing), or pass --project DIR.",
};

const USAGE_NEXT = "run `awr help`, or add --help to the command, for its words and flags";

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A ClaimConflict's next step names who holds the claim, or says the caller holds none. */
function claimStep(details: Record<string, unknown> | undefined): string {
  const holder = details?.["holder"];
  const work = typeof details?.["work"] === "string" ? details["work"] : "the work item";
  if (isRecord(holder)) {
    const until =
      typeof holder["expires_at"] === "number"
        ? ` until ${new Date(holder["expires_at"]).toISOString()}`
        : "";
    return `Session ${String(holder["session"])} holds the claim on ${work}${until}: wait for it to be released or to expire, or pick other work (awr ready).`;
  }
  const session =
    typeof details?.["session"] === "string" ? ` --session ${details["session"]}` : "";
  return `Your session holds no claim on ${work}: claim it first with \`awr session claim${session}\`.`;
}

/**
 * The error's text with every tool name replaced by the CLI command that runs it
 * (`awr_session_claim` reads `awr session claim`): a person at the terminal types commands.
 */
export function cliText(text: string): string {
  return text.replace(/\bawr_[a-z_]+\b/g, (tool) => {
    const path = findOperation(tool)?.cli[0]?.path;
    return path === undefined ? tool : `\`awr ${path.join(" ")}\``;
  });
}

/** Turns anything thrown during a run into a CliError; domain errors keep their code. */
export function toCliError(error: unknown): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof Error) {
    const { code, details, result, next } = error as Error & {
      code?: unknown;
      details?: unknown;
      result?: unknown;
      next?: unknown;
    };
    if (
      (error.name === "LedgerError" || error.name === "AwrToolError") &&
      typeof code === "string"
    ) {
      return new CliError(code, error.message, {
        cause: error,
        ...(isRecord(details) ? { details } : {}),
        ...(isRecord(result) ? { result } : {}),
        ...(typeof next === "string" ? { next } : {}),
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

/** The rendered packet, or the diagnostic, of an error's partial context result. */
function partialText(result: Record<string, unknown> | undefined): string | undefined {
  // A preparation carries its context under `context`, as awr_context_compile answers it.
  const context = result?.["context"];
  if (isRecord(context) && result?.["stage"] === "prepared") return partialText(context);
  const packet = result?.["work_context"];
  const rendered = isRecord(packet) ? packet["rendered_context"] : result?.["diagnostic_text"];
  return typeof rendered === "string" ? rendered : undefined;
}

/** How many of a broken source's issues the human output lists; `--json` has them all. */
export const SHOWN_SOURCE_ISSUES = 5;

/** The step after a source that cannot be indexed as it is: the file is the fault, not the ledger. */
export const FIX_SOURCE_STEP =
  "Fix the file at the line named above, then run `awr source reindex` (a local read reindexes by itself).";

/** A source file's issue: the file, its line (null: the whole file) and what is wrong. */
interface SourceIssue {
  path: string;
  line: number | null;
  message: string;
}

/** The issues of `details.issues` that name a place in a source file (path, line, message). */
function sourceIssues(value: unknown): SourceIssue[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (issue): issue is SourceIssue =>
      isRecord(issue) &&
      typeof issue["path"] === "string" &&
      typeof issue["message"] === "string" &&
      (typeof issue["line"] === "number" || issue["line"] === null),
  );
}

/** `file:line: message` lines, at most SHOWN_SOURCE_ISSUES, then how many more there are. */
export function sourceIssueLines(issues: readonly SourceIssue[]): string[] {
  const lines = issues
    .slice(0, SHOWN_SOURCE_ISSUES)
    .map(({ path, line, message }) => `${path}${line === null ? "" : `:${line}`}: ${message}`);
  const more = issues.length - SHOWN_SOURCE_ISSUES;
  if (more > 0) lines.push(`and ${more} more (--json lists every one)`);
  return lines;
}

/** A context's completeness in one line: each issue's code and what it concerns. */
function gapsText(completeness: Record<string, unknown>): string {
  const issues = Array.isArray(completeness["issues"]) ? completeness["issues"] : [];
  const named = issues
    .filter(isRecord)
    .map((i) => `${String(i["code"])} ${String(i["reference"])}`);
  return named.length > 0 ? named.join("; ") : String(completeness["status"] ?? "incomplete");
}

/**
 * Prints an error. Under --json: `{code, message, details?}` as one JSON line on stderr, and an
 * error's partial result (a context with its gaps) on stdout. Otherwise prose with a `next:` line.
 */
export function writeError(
  error: CliError,
  streams: { stdout: OutputStream; stderr: OutputStream },
  json: boolean,
  colors: Colors,
): void {
  const stream = streams.stderr;
  if (json) {
    if (error.result !== undefined) {
      streams.stdout.write(`${JSON.stringify(error.result, null, 2)}\n`);
    }
    stream.write(`${JSON.stringify(error.toPayload())}\n`);
    return;
  }
  // An incomplete context still comes with its packet (or diagnostic): what a person reads.
  const partial = partialText(error.result);
  if (partial !== undefined) streams.stdout.write(`${partial.trimEnd()}\n`);
  const label = error.usage ? "usage error" : `error [${error.code}]`;
  stream.write(`${colors.red(colors.bold(label))}: ${error.display ?? cliText(error.message)}\n`);
  // An incomplete context's gaps are in its result's completeness (its error has no details).
  const prepared = error.result?.["context"];
  const completeness = isRecord(prepared)
    ? prepared["completeness"]
    : error.result?.["completeness"];
  if (isRecord(completeness)) stream.write(`  ${colors.dim("gaps")}: ${gapsText(completeness)}\n`);
  // A message said in the command's own words says its details too.
  if (error.details !== undefined && !error.usage && error.display === undefined) {
    for (const [key, value] of Object.entries(error.details)) {
      // The fix a tool caller gets as data is the next: line here (suggestions: its "Did you mean").
      if (key === "next" || key === "cli" || key === "suggestions") continue;
      // A broken source's issues: where, not a JSON dump of every one.
      const issues = key === "issues" ? sourceIssues(value) : [];
      if (issues.length > 0 && Array.isArray(value) && issues.length === value.length) {
        for (const line of sourceIssueLines(issues)) stream.write(`  ${line}\n`);
        continue;
      }
      const shown = typeof value === "string" ? value : JSON.stringify(value);
      stream.write(`  ${colors.dim(key)}: ${cliText(shown)}\n`);
    }
  }
  const next = error.usage
    ? USAGE_NEXT
    : // The code that raised the error knew the step that fixes it: that says it best.
      error.next !== undefined
      ? cliText(error.next)
      : error.code === "ClaimConflict"
        ? claimStep(error.details)
        : error.code === "SourceStale" && typeof error.details?.["cli"] === "string"
          ? `The planning sources changed since the last index: run \`${error.details["cli"]}\`, then retry.`
          : // An error that names its own fix as data (a doctor repair's refusal) comes next.
            typeof error.details?.["next"] === "string"
            ? error.details["next"]
            : sourceIssues(error.details?.["issues"]).length > 0
              ? FIX_SOURCE_STEP
              : NEXT_STEP[error.code];
  if (next) stream.write(`${colors.cyan("next")}: ${next}\n`);
}
