import { LedgerError } from "../errors.js";
import type { SourceIssue } from "../sources/adapters/index.js";
import {
  type LoadedManifest,
  MANIFEST_PATH,
  parseSource,
  type ReadSource,
  readSource,
} from "../sources/read-sources.js";
import { appendEvent } from "../storage/events.js";
import type { LedgerStore, LedgerTx } from "../storage/ledger-store.js";
import { checkExpectedRevision, readRevision, spendRevision } from "../storage/revision.js";
import { entityId } from "./entity-id.js";

export interface SourceIndexState {
  path: string;
  domain: string;
  adapter: string;
  fingerprint: string;
  entity_count: number;
  state: "indexed" | "unchanged" | "removed";
}

export interface ReindexResult {
  project_revision: number;
  /** True when something changed and a revision was spent. */
  reindexed: boolean;
  changed_paths: string[];
  removed_paths: string[];
  sources: SourceIndexState[];
  /** Warnings found while parsing the changed sources (errors refuse the whole index). */
  issues: SourceIssue[];
}

export interface IndexOptions {
  /** Re-parse every source even if its fingerprint is unchanged. */
  force?: boolean | undefined;
  expected_revision?: number | undefined;
  client?: string | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * Brings the projection up to date with the sources, all in ONE write transaction: a failure at
 * any point (malformed source, duplicate key across sources, database error) leaves the previous
 * projection and revision untouched. Unchanged sources (same sha256) are skipped; a revision is
 * spent, and a `source.reindexed` event appended, only when something changed.
 */
export async function indexSources(
  store: LedgerStore,
  root: string,
  loaded: LoadedManifest,
  options: IndexOptions = {},
): Promise<ReindexResult> {
  const reads = loaded.manifest.sources.map((source) => readSource(root, source));
  return store.write(
    async (tx) => {
      const current = await readRevision(tx);
      checkExpectedRevision(options.expected_revision, current);
      const state = await tx
        .selectFrom("project_state")
        .select("manifest_fingerprint")
        .executeTakeFirst();
      const rows = await tx.selectFrom("sources").selectAll().execute();
      const recorded = new Map(rows.map((row) => [row.path, row]));
      const changed = reads.filter((read) => {
        const row = recorded.get(read.path);
        return (
          options.force === true ||
          row === undefined ||
          row.fingerprint !== read.snapshot.fingerprint ||
          row.adapter !== read.source.adapter ||
          row.domain !== read.source.domain
        );
      });
      const listed = new Set(reads.map((r) => r.path));
      const removed = rows.filter((row) => !listed.has(row.path)).map((row) => row.path);
      const manifestChanged = state?.manifest_fingerprint !== loaded.fingerprint;
      const sources = reads.map((read): SourceIndexState => {
        const row = recorded.get(read.path);
        return {
          path: read.path,
          domain: read.source.domain,
          adapter: read.source.adapter,
          fingerprint: read.snapshot.fingerprint,
          entity_count: row?.entity_count ?? 0,
          state: changed.includes(read) ? "indexed" : "unchanged",
        };
      });
      for (const path of removed) {
        const row = recorded.get(path);
        sources.push({
          path,
          domain: row?.domain ?? "",
          adapter: row?.adapter ?? "",
          fingerprint: row?.fingerprint ?? "",
          entity_count: 0,
          state: "removed",
        });
      }
      if (changed.length === 0 && removed.length === 0 && !manifestChanged) {
        return {
          project_revision: current,
          reindexed: false,
          changed_paths: [],
          removed_paths: [],
          sources,
          issues: [],
        };
      }

      const parsed = changed.map((read) => ({ read, result: parseSource(read) }));
      const issues = parsed.flatMap((p) => p.result.issues);
      const errors = issues.filter((i) => i.severity === "error");
      if (errors.length > 0) {
        const first = errors[0] as SourceIssue;
        throw new LedgerError(
          "InvalidInput",
          `Cannot index ${first.path}${first.line === null ? "" : `:${first.line}`}: ${first.message}` +
            (errors.length > 1 ? ` (and ${errors.length - 1} more problem(s))` : "") +
            ". Fix the source and reindex; the previous projection is unchanged.",
          { issues: errors },
        );
      }

      const revision = await spendRevision(tx);
      for (const path of [...removed, ...changed.map((c) => c.path)]) {
        await tx.deleteFrom("dependencies").where("source_path", "=", path).execute();
        await tx.deleteFrom("entities").where("source_path", "=", path).execute();
      }
      await tx
        .deleteFrom("sources")
        .where("path", "in", removed.length > 0 ? removed : [""])
        .execute();
      for (const { read, result } of parsed) {
        await writeSource(tx, store.projectId, read, result, revision);
        const entry = sources.find((s) => s.path === read.path);
        if (entry !== undefined) entry.entity_count = result.entities.length;
      }
      await tx
        .updateTable("project_state")
        .set({ manifest_fingerprint: loaded.fingerprint })
        .execute();
      const changedPaths = changed.map((c) => c.path);
      if (manifestChanged) changedPaths.push(MANIFEST_PATH);
      await appendEvent(tx, {
        type: "source.reindexed",
        revision,
        client: options.client ?? null,
        summary: `reindexed ${changedPaths.length} changed and ${removed.length} removed source(s)`,
        payload: { changed_paths: changedPaths, removed_paths: removed },
      });
      return {
        project_revision: revision,
        reindexed: true,
        changed_paths: changedPaths,
        removed_paths: removed,
        sources,
        issues,
      };
    },
    { signal: options.signal },
  );
}

async function writeSource(
  tx: LedgerTx,
  projectId: string,
  read: ReadSource,
  result: ReturnType<typeof parseSource>,
  revision: number,
): Promise<void> {
  for (const [ordinal, entity] of result.entities.entries()) {
    const clash = await tx
      .selectFrom("entities")
      .select(["source_path", "line_start"])
      .where("key", "=", entity.key)
      .executeTakeFirst();
    if (clash !== undefined) {
      throw new LedgerError(
        "InvalidInput",
        `Cannot index ${read.path}:${entity.line_start}: key ${entity.key} is already defined at ` +
          `${clash.source_path}:${clash.line_start}. Give one of them another key and reindex; the ` +
          "previous projection is unchanged.",
        {
          issues: [
            {
              path: read.path,
              line: entity.line_start,
              severity: "error",
              message: `duplicate key ${entity.key}`,
            },
          ],
        },
      );
    }
    await tx
      .insertInto("entities")
      .values({
        id: entityId(projectId, entity.key),
        kind: entity.kind,
        key: entity.key,
        title: entity.title,
        status: entity.status,
        raw_status: entity.raw_status,
        summary: entity.summary,
        body: entity.body,
        attributes: JSON.stringify(entity.attributes),
        source_path: read.path,
        line_start: entity.line_start,
        line_end: entity.line_end,
        ordinal,
        indexed_revision: revision,
      })
      .execute();
  }
  for (const dep of result.dependencies) {
    await tx
      .insertInto("dependencies")
      .values({
        work_key: dep.work_key,
        depends_on: dep.depends_on,
        required: dep.required ? 1 : 0,
        source_path: read.path,
      })
      .onConflict((oc) =>
        oc.columns(["work_key", "depends_on"]).doUpdateSet({ required: dep.required ? 1 : 0 }),
      )
      .execute();
  }
  await tx
    .insertInto("sources")
    .values({
      path: read.path,
      domain: read.source.domain,
      role: read.source.role,
      adapter: read.source.adapter,
      fingerprint: read.snapshot.fingerprint,
      size: read.snapshot.size,
      mtime_ms: read.snapshot.mtime_ms,
      indexed_revision: revision,
      entity_count: result.entities.length,
    })
    .onConflict((oc) =>
      oc.column("path").doUpdateSet({
        domain: read.source.domain,
        role: read.source.role,
        adapter: read.source.adapter,
        fingerprint: read.snapshot.fingerprint,
        size: read.snapshot.size,
        mtime_ms: read.snapshot.mtime_ms,
        indexed_revision: revision,
        entity_count: result.entities.length,
      }),
    )
    .execute();
}
