import type { Kysely } from "kysely";
import { LedgerError } from "../errors.js";
import { yieldToEventLoop } from "../internal/yield.js";
import type { AdapterResult, SourceIssue } from "../sources/adapters/index.js";
import {
  type LoadedManifest,
  MANIFEST_PATH,
  parseSource,
  type ReadSource,
  readManifestSources,
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
  parsed: { read: ReadSource; result: AdapterResult }[];
}

export { readManifestSources };

/**
 * Parses of one reindex, by unit and content: a plan made twice in one call (a journaled
 * reindex's precheck and commit, or a parse done before the write transaction) parses a file
 * once. Keyed by path, fingerprint, adapter and options.
 */
export type ParseCache = Map<string, Promise<AdapterResult>>;

/** A unit's parse, from `cache` when the same content was parsed in this call already. */
export function parseCached(
  read: ReadSource,
  cache: ParseCache | undefined,
  signal?: AbortSignal,
): Promise<AdapterResult> {
  const key = [
    read.path,
    read.snapshot.fingerprint,
    read.source.adapter,
    JSON.stringify(read.source.options),
  ].join("\u0000");
  let parsed = cache?.get(key);
  if (parsed === undefined) {
    parsed = parseSource(read, signal);
    cache?.set(key, parsed);
    parsed.catch(() => cache?.delete(key));
  }
  return parsed;
}

/** The units a reindex would parse now (reads the projection only; no parsing). */
export async function changedUnits(
  db: Kysely<LedgerSchema>,
  loaded: LoadedManifest,
  reads: readonly ReadSource[],
  force = false,
): Promise<ReadSource[]> {
  const { state, rows } = await readRecorded(db);
  return compareRecorded(loaded, reads, state, rows, force).changed;
}

/**
 * Parses `units` into `cache` (outside any transaction, so a large parse holds no lock); a
 * failure is left for the plan to report.
 */
export async function preparse(
  units: readonly ReadSource[],
  cache: ParseCache,
  signal?: AbortSignal,
): Promise<void> {
  for (const read of units) await parseCached(read, cache, signal).catch(() => undefined);
  if (signal?.aborted) throw signal.reason;
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
      row.domain !== read.source.domain ||
      row.kind !== read.kind
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
  options: {
    force?: boolean | undefined;
    cache?: ParseCache | undefined;
    signal?: AbortSignal | undefined;
  } = {},
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

  const parsed: ReindexPlan["parsed"] = [];
  for (const read of changed) {
    parsed.push({ read, result: await parseCached(read, options.cache, options.signal) });
  }
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
 * The first key the parsed units define twice, as an error issue naming both places and the
 * fix; `kept` holds the keys of units left as they are.
 */
export function findKeyClash(
  parsed: ReindexPlan["parsed"],
  kept: ReadonlyMap<string, { path: string; line: number }> = new Map(),
): SourceIssue | undefined {
  const seen = new Map(kept);
  for (const { read, result } of parsed) {
    for (const entity of result.entities) {
      const first = seen.get(entity.key);
      if (first !== undefined) {
        return {
          path: read.path,
          line: entity.line_start,
          severity: "error",
          message: `key ${entity.key} is already defined at ${first.path}:${first.line}; give one of them another key`,
        };
      }
      seen.set(entity.key, { path: read.path, line: entity.line_start });
    }
  }
  return undefined;
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
  const clash = findKeyClash(
    parsed,
    new Map(kept.map((row) => [row.key, { path: row.source_path, line: Number(row.line_start) }])),
  );
  if (clash !== undefined) {
    throw new LedgerError(
      "InvalidInput",
      `Cannot index ${clash.path}:${clash.line}: ${clash.message}, and reindex; the previous projection is unchanged.`,
      { issues: [clash] },
    );
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
    await deleteEntitiesOf(tx, path);
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

/** A unit's entities, deleted a batch at a time with yields between (see writeSource). */
async function deleteEntitiesOf(tx: LedgerTx, path: string): Promise<void> {
  const keys = (
    await tx.selectFrom("entities").select("key").where("source_path", "=", path).execute()
  ).map((r) => r.key);
  for (let i = 0; i < keys.length; i += INSERT_BATCH * BATCHES_PER_YIELD) {
    await tx
      .deleteFrom("entities")
      .where("key", "in", keys.slice(i, i + INSERT_BATCH * BATCHES_PER_YIELD))
      .execute();
    await yieldToEventLoop();
  }
}

/** Rows per INSERT statement, and statements between yields to the event loop. */
const INSERT_BATCH = 100;
const BATCHES_PER_YIELD = 4;

/**
 * Writes one unit's entities, dependencies and source row. Entities go in multi-row INSERTs,
 * and the loop yields to the event loop every few batches, so a source with many entities
 * never holds the thread long enough to stall another project's reads in the same process.
 */
async function writeSource(
  tx: LedgerTx,
  projectId: string,
  read: ReadSource,
  result: AdapterResult,
  revision: number,
): Promise<void> {
  const keys = result.entities.map((e) => e.key);
  for (let i = 0; i < keys.length; i += 500) {
    // planReindex refused clashes already; this guards the transaction all the same.
    const clash = await tx
      .selectFrom("entities")
      .select(["key", "source_path", "line_start"])
      .where("key", "in", keys.slice(i, i + 500))
      .executeTakeFirst();
    if (clash !== undefined) {
      const entity = result.entities.find((e) => e.key === clash.key);
      throw keyClash(read.path, entity?.line_start ?? 0, clash.key, {
        path: clash.source_path,
        line: Number(clash.line_start),
      });
    }
  }
  for (let i = 0; i < result.entities.length; i += INSERT_BATCH) {
    const rows = result.entities.slice(i, i + INSERT_BATCH).map((entity, offset) => ({
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
      ordinal: i + offset,
      indexed_revision: revision,
    }));
    await tx.insertInto("entities").values(rows).execute();
    if ((i / INSERT_BATCH) % BATCHES_PER_YIELD === BATCHES_PER_YIELD - 1) await yieldToEventLoop();
  }
  for (const [index, dep] of result.dependencies.entries()) {
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
    if (index % (INSERT_BATCH * BATCHES_PER_YIELD) === 0) await yieldToEventLoop();
  }
  const row = {
    domain: read.source.domain,
    role: read.source.role,
    adapter: read.source.adapter,
    fingerprint: read.snapshot.fingerprint,
    size: read.snapshot.size,
    mtime_ms: read.snapshot.mtime_ms,
    indexed_revision: revision,
    entity_count: result.entities.length,
    kind: read.kind,
    note: result.note === undefined ? null : JSON.stringify(result.note),
  };
  await tx
    .insertInto("sources")
    .values({ path: read.path, ...row })
    .onConflict((oc) => oc.column("path").doUpdateSet(row))
    .execute();
}
