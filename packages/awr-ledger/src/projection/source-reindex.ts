import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type { CallOptions, RuntimeCaller, RuntimeContext } from "../core/runtime-context.js";
import { LedgerError } from "../errors.js";
import { runJournaledWrite, type WriteReceipt } from "../journal/run-write.js";
import type { LoadedManifest } from "../sources/read-sources.js";
import { isSecretIssue } from "../sources/source-secrets.js";
import { applyReindex, projectionSummary } from "./apply-reindex.js";
import { heldBackError, reindexSummary } from "./index-sources.js";
import {
  changedUnits,
  type ParseCache,
  planReindex,
  preparse,
  type ReindexChanges,
  readManifestSources,
} from "./reindex-plan.js";

export interface SourceReindexInput {
  expected_revision: number;
  request_id?: string | undefined;
}

/** Where the sources are: the project root and a fresh read of its manifest. */
export interface SourceLocation {
  root: string;
  loadManifest(): LoadedManifest;
}

/**
 * awr_source_reindex, journaled like every write (docs/design/journal-three-steps.md). Under the project lock,
 * after the expected_revision check, the sources are compared with the projection:
 * - nothing changed: the request is recorded as finished without spending a revision and
 *   without events (`reindexed: false`, no `terminal_event`), because a revision is spent only
 *   when something changed; the same request_id replays that answer;
 * - a malformed source or a key defined twice: InvalidInput, nothing journaled, the same
 *   request_id may be retried once the file is fixed;
 * - otherwise (a) `mcp.operation_started`, (b) one commit that rewrites the changed sources'
 *   projection and appends the terminal `source.reindexed` event (payload: changed_paths,
 *   added_paths, removed_paths), (c) `mcp.operation_finished`.
 * The sources are read again inside (b), so the recorded result is what was written. Changed
 * sources are parsed once, before the project lock is taken (large ones in the parse worker);
 * the plans inside reuse those parses while the files are unchanged.
 */
export async function sourceReindex(
  ctx: RuntimeContext,
  location: SourceLocation,
  input: SourceReindexInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<ReindexChanges & WriteReceipt> {
  const signal = options?.signal;
  const cache: ParseCache = new Map();
  const plan = async (db: Parameters<typeof planReindex>[0]) => {
    const loaded = location.loadManifest();
    const reads = await readManifestSources(location.root, loaded);
    return planReindex(db, loaded, reads, { force: false, cache, signal });
  };
  {
    const loaded = location.loadManifest();
    const reads = await readManifestSources(location.root, loaded);
    const units = await ctx.store.read((db) => changedUnits(db, loaded, reads, false), { signal });
    await preparse(units, cache, signal);
  }

  return runJournaledWrite<ReindexChanges>(
    ctx,
    {
      input,
      caller,
      precheck: async (db) => {
        const planned = await plan(db);
        return planned.unchanged ? planned.changes : undefined;
      },
      domain: (op) =>
        op.commit(async (unit) => {
          const planned = await plan(unit.tx);
          // Between the precheck and here the files may have been put back as they were: the
          // request is journaled already, so it still ends with its one terminal event.
          const projections = await applyReindex(
            unit.tx,
            ctx.store.projectId,
            planned,
            unit.revision,
          );
          for (const projection of projections) {
            await unit.event({
              type: DOMAIN_EVENT_TYPES.sourceProjected,
              summary: projectionSummary(projection),
              payload: { ...projection },
            });
          }
          const changes = planned.changes;
          const { changed_paths, added_paths, removed_paths } = changes;
          await unit.terminal(
            {
              type: DOMAIN_EVENT_TYPES.sourceReindexed,
              summary: reindexSummary(changes),
              payload: { changed_paths, added_paths, removed_paths },
            },
            { ...changes },
          );
          return changes;
        }),
    },
    options,
  );
}

/**
 * A reindex that held a source back (it holds a credential, docs/design/secret-boundaries.md) is
 * not a success: RuleViolation naming the first finding's file and line and the fix, never the
 * value (heldBackError), saying what the reindex did index, with the reindex's result attached
 * (the tool answers it under the error, the CLI prints it and exits 1). Checked on the result,
 * after the journaled write: what the reindex indexed stays indexed, the held-back source keeps
 * its previous projection, and a replay of the same request_id is refused the same way.
 */
export function refuseHeldBack<T extends ReindexChanges & { project_revision: number }>(
  result: T,
): T {
  const held = result.issues.filter(isSecretIssue);
  if (held.length === 0) return result;
  const refusal = heldBackError(held);
  const indexed = result.reindexed
    ? ` The other changes were indexed at revision ${result.project_revision}` +
      (result.changed_paths.length > 0 ? ` (${result.changed_paths.join(", ")}).` : ".")
    : " Nothing else changed.";
  const next = (refusal as { next?: string | undefined }).next;
  throw new LedgerError(
    refusal.code,
    `${refusal.message}${indexed}`,
    { ...refusal.details, project_revision: result.project_revision },
    {
      cause: refusal,
      result: { ...result } as Record<string, unknown>,
      ...(next === undefined ? {} : { next }),
    },
  );
}
