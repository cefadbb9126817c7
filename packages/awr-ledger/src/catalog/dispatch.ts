import type { RuntimeCaller } from "../core/runtime-context.js";
import { isLedgerError, LedgerError } from "../errors.js";
import { withoutOtherClientsSessions } from "../runtime/session-id-privacy.js";
import { checkExpectedRevision } from "../storage/revision.js";
import { type AdmittedInput, admitArguments } from "./admit-arguments.js";
import { checkedSchemaFor, findOperation } from "./catalog.js";
import type { Operation, OperationHost, OperationOptions } from "./operation.js";
import { LAST_RECORDED, readPolicy } from "./read-policy.js";
import { checkSources } from "./source-check.js";

/**
 * Runs one catalog operation by its tool name with arguments as they came (the CLI, the
 * ledger's own API): an unknown tool is Unsupported, then the arguments pass the gate
 * (admitArguments, against the tool's stdio schema) and the operation runs (runAdmitted).
 */
export async function runOperation(
  host: OperationHost,
  tool: string,
  args: unknown,
  caller: RuntimeCaller,
  options: OperationOptions = {},
): Promise<Record<string, unknown>> {
  const entry = knownOperation(tool);
  const input = admitArguments(tool, checkedSchemaFor(entry, "stdio"), args, options);
  return await runEntry(host, entry, tool, input, caller, options);
}

// biome-ignore lint/suspicious/noExplicitAny: any catalog entry.
function knownOperation(tool: string): Operation<any, unknown> {
  const entry = findOperation(tool);
  if (entry === undefined) {
    throw new LedgerError("Unsupported", `unknown tool ${tool}`, { tool });
  }
  return entry;
}

/**
 * Runs one catalog operation on arguments the gate admitted (the MCP server admits them against
 * the tool's schema for its transport), without checking them again: the sources are checked
 * or refreshed as the entry's freshness says, and the answer gets `ok` and the read policy. An
 * error with a partial result gets the same, with the error under `error`.
 */
export async function runAdmitted(
  host: OperationHost,
  tool: string,
  input: AdmittedInput,
  caller: RuntimeCaller,
  options: OperationOptions = {},
): Promise<Record<string, unknown>> {
  return await runEntry(host, knownOperation(tool), tool, input, caller, options);
}

async function runEntry(
  host: OperationHost,
  // biome-ignore lint/suspicious/noExplicitAny: any catalog entry.
  entry: Operation<any, unknown>,
  tool: string,
  input: AdmittedInput,
  caller: RuntimeCaller,
  options: OperationOptions,
): Promise<Record<string, unknown>> {
  const cachedArgument =
    entry.cachedBy !== undefined && (input as Record<string, unknown>)[entry.cachedBy] === true;
  const policy = readPolicy(
    cachedArgument ? { ...entry, freshness: "runtime" } : entry,
    host,
    options,
  );
  const cached = cachedArgument || policy["freshness_basis"] === LAST_RECORDED;
  try {
    if (entry.kind === "read" && entry.freshness === "sources" && !cached) {
      await checkSources(host, caller, options);
    }
    const runOptions = {
      ...options,
      tool,
      ...(entry.freshness === "refresh"
        ? { beforeWrite: () => refreshBeforeWrite(host, input, caller, options) }
        : {}),
    };
    const result = (await entry.run(host, input, caller, runOptions)) as Record<string, unknown>;
    return await seenBy(host, entry, caller, { ok: true, ...result, ...policy });
  } catch (error) {
    if (!isLedgerError(error)) throw error;
    const seen = await seenBy(host, entry, caller, {
      message: error.message,
      details: error.details,
      result:
        error.result === undefined
          ? undefined
          : { ok: false, ...error.result, ...policy, error: error.toJSON() },
    });
    if (seen.message === error.message && seen.details === error.details) {
      error.result = seen.result;
      throw error;
    }
    throw new LedgerError(error.code, seen.message, seen.details, {
      cause: error.cause,
      ...(seen.result === undefined ? {} : { result: seen.result }),
      ...(error.next === undefined ? {} : { next: error.next }),
    });
  }
}

/**
 * An answer or an error as the caller may see it: another client's session ids replaced
 * (runtime/session-id-privacy.ts), in the result, the message and the details alike. The
 * CLI-only operator tools (doctor and its repairs, histories, branch writes) are exempt: they
 * run on the project's own machine, never over MCP, and a repair names the session it acts on.
 */
function seenBy<T>(
  host: OperationHost,
  // biome-ignore lint/suspicious/noExplicitAny: any catalog entry.
  entry: Operation<any, unknown>,
  caller: RuntimeCaller,
  value: T,
): Promise<T> {
  if (entry.surface === "cli") return Promise.resolve(value);
  return withoutOtherClientsSessions(host.runtime.store.db, caller.client, value);
}

/**
 * A `refresh` write: its expected_revision is checked first (so a stale request reindexes
 * nothing), then changed sources are reindexed; the write itself checks again under the lock,
 * so a refresh that advanced the revision makes it RevisionConflict.
 */
async function refreshBeforeWrite(
  host: OperationHost,
  input: AdmittedInput,
  caller: RuntimeCaller,
  options: OperationOptions,
): Promise<void> {
  if (host.project === undefined) return;
  const expected = input["expected_revision"] as number | undefined;
  checkExpectedRevision(expected, await host.runtime.store.currentRevision());
  const refreshed = await host.project.ensureFresh({
    refresh: true,
    client: caller.client,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  if (!refreshed || expected === undefined) return;
  // The caller's revision was current, but the sources had changed since its read: the write
  // reindexed them first, which spent a revision. Say so, rather than a bare mismatch the caller
  // cannot explain (the write's own check under the lock would refuse it anyway).
  const actual = await host.runtime.store.currentRevision();
  if (actual === expected) return;
  throw new LedgerError(
    "RevisionConflict",
    `expected_revision ${expected} was current, but the planning sources changed since that read, so this write reindexed them first and the project is now at revision ${actual}; nothing else was written. Read the current state (the change may matter to this write), then retry with expected_revision ${actual}.`,
    { expected, actual, sources_reindexed: true },
  );
}
