import type { Kysely } from "kysely";
import { LedgerError } from "../errors.js";
import type { SourceIssue } from "../sources/adapters/index.js";
import {
  type LoadedManifest,
  MANIFEST_PATH,
  parseSource,
  type ReadSource,
  readSource,
} from "../sources/read-sources.js";
import type { LedgerTx } from "../storage/ledger-store.js";
import type { LedgerSchema } from "../storage/schema.js";
import { entityId } from "./entity-id.js";

export interface SourceIndexState {
  path: string;
  domain: string;
  adapter: string;
  fingerprint: string;
  entity_count: number;
  state: "indexed" | "unchanged" | "removed";
}

/** What a reindex changed (or would change); the domain part of `ReindexResult`. */
export interface ReindexChanges {
  /** True when something changed (and a revision was spent for it). */
  reindexed: boolean;
  /** Every source indexed again, plus `.awr/project.toml` when the manifest changed. */
  changed_paths: string[];
  /** The subset of `changed_paths` that had never been indexed before. */
  added_paths: string[];
  removed_paths: string[];
  sources: SourceIndexState[];
  /** Warnings found while parsing the changed sources (errors refuse the whole index). */
  issues: SourceIssue[];
}

/**
 * A reindex worked out against the recorded projection, before anything is written: which
 * sources changed, their parsed entities, and the refusal (InvalidInput) of a malformed source
 * or a key defined twice. Building it writes nothing, so a refusal changes nothing.
 */
export interface ReindexPlan {
  loaded: LoadedManifest;
  /** Nothing to do: every source and the manifest are as indexed (and no `force`). */
  unchanged: boolean;
  changes: ReindexChanges;
  parsed: { read: ReadSource; result: ReturnType<typeof parseSource> }[];
}

/** Reads (and hashes) every source of the manifest, as it is on disk now. */
export function readManifestSources(root: string, loaded: LoadedManifest): ReadSource[] {
  return loaded.manifest.sources.map((source) => readSource(root, source));
}

type RecordedSource = Awaited<ReturnType<typeof readRecorded>>["rows"][number];

/** What the last index recorded: the manifest fingerprint and one row per indexed source. */
async function readRecorded(db: Kysely<LedgerSchema>) {
  const state = await db
    .selectFrom("project_state")
    .select("manifest_fingerprint")
    .executeTakeFirst();
  const rows = await db.selectFrom("sources").selectAll().execute();
  return { state, rows };
}

/**
 * The one staleness rule of a reindex: a source changed when it was never indexed, its content
 * (sha256) differs from the recorded one, or the manifest now gives it another adapter or
 * domain; a recorded source the manifest no longer lists is removed; the manifest itself
 * changed when its fingerprint differs.
 */
function compareRecorded(
  loaded: LoadedManifest,
  reads: readonly ReadSource[],
  state: { manifest_fingerprint: string | null } | undefined,
  rows: readonly RecordedSource[],
  force: boolean,
): { changed: ReadSource[]; removed: string[]; manifestChanged: boolean } {
  const recorded = new Map(rows.map((row) => [row.path, row]));
  const changed = reads.filter((read) => {
    const row = recorded.get(read.path);
    return (
      force ||
      row === undefined ||
      row.fingerprint !== read.snapshot.fingerprint ||
      row.adapter !== read.source.adapter ||
      row.domain !== read.source.domain
    );
  });
  const listed = new Set(reads.map((r) => r.path));
  const removed = rows.filter((row) => !listed.has(row.path)).map((row) => row.path);
  const manifestChanged = state?.manifest_fingerprint !== loaded.fingerprint;
  return { changed, removed, manifestChanged };
}

/**
 * True when a reindex of `reads` would find nothing to do (planReindex's `unchanged`), decided
 * with two plain SELECTs and no write transaction or parsing: the fast path of a refreshing read
 * on sources that did not change. A concurrent writer may index in between; the caller's
 * reindex, if it runs, decides again inside its own transaction.
 */
export async function isUpToDate(
  db: Kysely<LedgerSchema>,
  loaded: LoadedManifest,
  reads: readonly ReadSource[],
): Promise<boolean> {
  const { state, rows } = await readRecorded(db);
  const { changed, removed, manifestChanged } = compareRecorded(loaded, reads, state, rows, false);
  return changed.length === 0 && removed.length === 0 && !manifestChanged;
}

export async function planReindex(
  db: Kysely<LedgerSchema>,
  loaded: LoadedManifest,
  reads: readonly ReadSource[],
  options: { force?: boolean | undefined } = {},
): Promise<ReindexPlan> {
  const { state, rows } = await readRecorded(db);
  const recorded = new Map(rows.map((row) => [row.path, row]));
  const { changed, removed, manifestChanged } = compareRecorded(
    loaded,
    reads,
    state,
    rows,
    options.force === true,
  );
  const sources = reads.map(
    (read): SourceIndexState => ({
      path: read.path,
      domain: read.source.domain,
      adapter: read.source.adapter,
      fingerprint: read.snapshot.fingerprint,
      entity_count: recorded.get(read.path)?.entity_count ?? 0,
      state: changed.includes(read) ? "indexed" : "unchanged",
    }),
  );
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
      loaded,
      unchanged: true,
      changes: {
        reindexed: false,
        changed_paths: [],
        added_paths: [],
        removed_paths: [],
        sources,
        issues: [],
      },
      parsed: [],
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
  await refuseKeyClashes(db, [...removed, ...changed.map((c) => c.path)], parsed);
  for (const { read, result } of parsed) {
    const entry = sources.find((s) => s.path === read.path);
    if (entry !== undefined) entry.entity_count = result.entities.length;
  }
  const changedPaths = changed.map((c) => c.path);
  if (manifestChanged) changedPaths.push(MANIFEST_PATH);
  return {
    loaded,
    unchanged: false,
    changes: {
      reindexed: true,
      changed_paths: changedPaths,
      added_paths: changed.filter((c) => !recorded.has(c.path)).map((c) => c.path),
      removed_paths: removed,
      sources,
      issues,
    },
    parsed,
  };
}

function keyClash(
  path: string,
  line: number,
  key: string,
  first: { path: string; line: number },
): LedgerError {
  return new LedgerError(
    "InvalidInput",
    `Cannot index ${path}:${line}: key ${key} is already defined at ${first.path}:${first.line}. ` +
      "Give one of them another key and reindex; the previous projection is unchanged.",
    { issues: [{ path, line, severity: "error", message: `duplicate key ${key}` }] },
  );
}

/**
 * Refuses a key that the parsed sources define twice, or that a source left as it is already
 * defines. Checked before writing, so the refusal changes nothing (and is not journaled).
 */
async function refuseKeyClashes(
  db: Kysely<LedgerSchema>,
  touched: readonly string[],
  parsed: ReindexPlan["parsed"],
): Promise<void> {
  const kept = await db
    .selectFrom("entities")
    .select(["key", "source_path", "line_start"])
    .where("source_path", "not in", touched.length > 0 ? [...touched] : [""])
    .execute();
  const seen = new Map(
    kept.map((row) => [row.key, { path: row.source_path, line: Number(row.line_start) }]),
  );
  for (const { read, result } of parsed) {
    for (const entity of result.entities) {
      const first = seen.get(entity.key);
      if (first !== undefined) throw keyClash(read.path, entity.line_start, entity.key, first);
      seen.set(entity.key, { path: read.path, line: entity.line_start });
    }
  }
}

/**
 * Writes a plan into the projection inside the caller's write transaction, at `revision`:
 * replaces the rows of changed and removed sources and records the manifest fingerprint.
 */
export async function applyReindex(
  tx: LedgerTx,
  projectId: string,
  plan: ReindexPlan,
  revision: number,
): Promise<void> {
  const { changes } = plan;
  const removed = changes.removed_paths;
  for (const path of [...removed, ...plan.parsed.map((p) => p.read.path)]) {
    await tx.deleteFrom("dependencies").where("source_path", "=", path).execute();
    await tx.deleteFrom("entities").where("source_path", "=", path).execute();
  }
  await tx
    .deleteFrom("sources")
    .where("path", "in", removed.length > 0 ? removed : [""])
    .execute();
  for (const { read, result } of plan.parsed) {
    await writeSource(tx, projectId, read, result, revision);
  }
  await tx
    .updateTable("project_state")
    .set({ manifest_fingerprint: plan.loaded.fingerprint })
    .execute();
}

async function writeSource(
  tx: LedgerTx,
  projectId: string,
  read: ReadSource,
  result: ReturnType<typeof parseSource>,
  revision: number,
): Promise<void> {
  for (const [ordinal, entity] of result.entities.entries()) {
    // planReindex refused clashes already; this guards the transaction all the same.
    const clash = await tx
      .selectFrom("entities")
      .select(["source_path", "line_start"])
      .where("key", "=", entity.key)
      .executeTakeFirst();
    if (clash !== undefined) {
      throw keyClash(read.path, entity.line_start, entity.key, {
        path: clash.source_path,
        line: Number(clash.line_start),
      });
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
