import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import { LedgerError } from "../errors.js";
import { SECRET_POLICY_VERSION } from "../secrets/policy.js";
import type { SourceIssue } from "../sources/adapters/index.js";
import type { LoadedManifest } from "../sources/read-sources.js";
import { isSecretIssue } from "../sources/source-secrets.js";
import { appendEvent } from "../storage/events.js";
import type { LedgerStore } from "../storage/ledger-store.js";
import { checkExpectedRevision, readRevision, spendRevision } from "../storage/revision.js";
import {
  changedUnits,
  isUpToDate,
  type ParseCache,
  planReindex,
  preparse,
  type ReindexChanges,
  readManifestSources,
} from "./reindex-plan.js";

export type { ReindexChanges, SourceIndexState } from "./reindex-plan.js";

export interface ReindexResult extends ReindexChanges {
  project_revision: number;
}

export interface IndexOptions {
  /** Re-parse every source even if its fingerprint is unchanged. */
  force?: boolean | undefined;
  expected_revision?: number | undefined;
  client?: string | undefined;
  signal?: AbortSignal | undefined;
  /** Parses already made in this call (init parses every source before it writes). */
  cache?: ParseCache | undefined;
}

/**
 * Brings the projection up to date with the sources, all in ONE write transaction: a failure at
 * any point (malformed source, duplicate key across sources, database error) leaves the previous
 * projection and revision untouched. Unchanged sources (same sha256) are skipped; a revision is
 * spent, and a `source.reindexed` event appended, only when something changed. The changed
 * sources are parsed before the transaction opens (large ones in the parse worker), so the
 * project's write lock is held only while the projection is written.
 *
 * This is the local, unjournaled path: `initProject` and the CLI's `{ refresh: true }` reads
 * use it. The write tool `awr_source_reindex` (`Ledger.sourceReindex`) goes through the request
 * journal instead (see source-reindex.ts).
 */
export async function indexSources(
  store: LedgerStore,
  root: string,
  loaded: LoadedManifest,
  options: IndexOptions = {},
): Promise<ReindexResult> {
  // Loaded here, not with the module: a refreshing read of unchanged sources never writes.
  const { applyReindex, projectionSummary } = await import("./apply-reindex.js");
  const reads = await readManifestSources(root, loaded);
  const cache: ParseCache = options.cache ?? new Map();
  const units = await store.read((db) => changedUnits(db, loaded, reads, options.force === true), {
    signal: options.signal,
  });
  await preparse(units, cache, options.signal);
  return store.write(
    async (tx) => {
      const current = await readRevision(tx);
      checkExpectedRevision(options.expected_revision, current);
      const plan = await planReindex(tx, loaded, reads, {
        force: options.force,
        cache,
        signal: options.signal,
      });
      if (plan.unchanged) return { ...plan.changes, project_revision: current };
      const revision = await spendRevision(tx);
      const projections = await applyReindex(tx, store.projectId, plan, revision);
      for (const projection of projections) {
        await appendEvent(tx, {
          type: DOMAIN_EVENT_TYPES.sourceProjected,
          revision,
          client: options.client ?? null,
          summary: projectionSummary(projection),
          payload: { ...projection },
        });
      }
      const { changed_paths, added_paths, removed_paths } = plan.changes;
      await appendEvent(tx, {
        type: DOMAIN_EVENT_TYPES.sourceReindexed,
        revision,
        client: options.client ?? null,
        summary: reindexSummary(plan.changes),
        payload: { changed_paths, added_paths, removed_paths },
      });
      return { ...plan.changes, project_revision: revision };
    },
    { signal: options.signal },
  );
}

/**
 * The CLI's refreshing read: `indexSources` when the sources or the manifest changed, else
 * nothing. A source held back because it holds a credential makes the read fail with
 * RuleViolation naming its file and line (the other sources are indexed first): the read would
 * otherwise answer from a projection that is not fresh. The sources are read and hashed as indexSources would (content decides, not stat),
 * but an unchanged project is settled by two SELECTs, without the project's write lock and
 * without loading the source parsers: the reindex it would have run changes nothing then.
 */
export async function refreshSources(
  store: LedgerStore,
  root: string,
  loaded: LoadedManifest,
  options: Pick<IndexOptions, "client" | "signal"> = {},
): Promise<void> {
  const reads = await readManifestSources(root, loaded);
  if (await store.read((db) => isUpToDate(db, loaded, reads), { signal: options.signal })) return;
  const result = await indexSources(store, root, loaded, options);
  const held = result.issues.filter(isSecretIssue);
  if (held.length > 0) throw heldBackError(held);
}

/** The refusal of a read whose sources include ones held back for a credential. */
export function heldBackError(held: readonly SourceIssue[]): LedgerError {
  const first = held[0] as SourceIssue;
  const where = first.line === null ? first.path : `${first.path}:${first.line}`;
  const more = held.length > 1 ? ` (and ${held.length - 1} more finding(s))` : "";
  return new LedgerError(
    "RuleViolation",
    `Cannot index ${where}: it ${first.message}${more}. The previous projection of that source is kept, so it is not fresh.`,
    {
      policy_version: SECRET_POLICY_VERSION,
      issues: [...held],
      changed_paths: [...new Set(held.map((i) => i.path))],
    },
    {
      next: `Remove the credential from ${where} (keep only a reference, such as the name of the environment variable that holds it); the next read or awr_source_reindex indexes the file again.`,
    },
  );
}

/** The `source.reindexed` event summary (searchable; never the payload). */
export function reindexSummary(changes: ReindexChanges): string {
  return `reindexed ${changes.changed_paths.length} changed and ${changes.removed_paths.length} removed source(s)`;
}
