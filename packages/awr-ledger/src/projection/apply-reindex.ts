import { yieldToEventLoop } from "../internal/yield.js";
import { SECRET_POLICY_VERSION } from "../secrets/policy.js";
import type { AdapterResult } from "../sources/adapters/index.js";
import type { ReadSource } from "../sources/read-sources.js";
import type { LedgerTx } from "../storage/ledger-store.js";
import { entityId } from "./entity-id.js";
import { keyClash, type ReindexPlan, WITHHELD_FINGERPRINT } from "./reindex-plan.js";
import { writeWorkstreamCatalog } from "./workstream-catalog-plan.js";

/** One entity a reindex added, changed or removed (by its content, not its position). */
export interface EntityChange {
  kind: string;
  id: string;
  /** The ledger's key (`rule#facts`) and the key its source gives it (`facts`). */
  key: string;
  external_key: string;
  change: "added" | "changed" | "removed";
}

/** What one reindexed source changed in the projection: a `source.projected` event's payload. */
export interface SourceProjection {
  source: string;
  changes: EntityChange[];
}

/** The summary of a `source.projected` event: the source and how many entities changed. */
export function projectionSummary(projection: SourceProjection): string {
  const count = (change: EntityChange["change"]) =>
    projection.changes.filter((c) => c.change === change).length;
  const parts = (["added", "changed", "removed"] as const)
    .map((c) => [c, count(c)] as const)
    .filter(([, n]) => n > 0)
    .map(([c, n]) => `${n} ${c}`);
  return `projected ${projection.source}: ${parts.join(", ")}`;
}

/** The key a source gives an entity: a heading's anchor without its `kind#` prefix. */
export function sourceKey(kind: string, key: string): string {
  return key.startsWith(`${kind}#`) ? key.slice(kind.length + 1) : key;
}

type EntityContent = { key: string; kind: string; content: string };

async function entityContents(tx: LedgerTx, path: string): Promise<EntityContent[]> {
  const rows = await tx
    .selectFrom("entities")
    .select(["key", "kind", "title", "status", "raw_status", "summary", "body", "attributes"])
    .where("source_path", "=", path)
    .execute();
  return rows.map(({ key, kind, ...rest }) => ({ key, kind, content: JSON.stringify(rest) }));
}

function entityChanges(
  projectId: string,
  before: readonly EntityContent[],
  after: readonly EntityContent[],
): EntityChange[] {
  const old = new Map(before.map((e) => [e.key, e]));
  const now = new Map(after.map((e) => [e.key, e]));
  const change = (e: EntityContent, kind: EntityChange["change"]): EntityChange => ({
    kind: e.kind,
    id: entityId(projectId, e.key),
    key: e.key,
    external_key: sourceKey(e.kind, e.key),
    change: kind,
  });
  const changes: EntityChange[] = [];
  for (const e of after) {
    const was = old.get(e.key);
    if (was === undefined) changes.push(change(e, "added"));
    else if (was.content !== e.content || was.kind !== e.kind) changes.push(change(e, "changed"));
  }
  for (const e of before) if (!now.has(e.key)) changes.push(change(e, "removed"));
  return changes.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * Writes a plan into the projection inside the caller's write transaction, at `revision`:
 * replaces the rows of changed and removed sources, records the plan's withheld units (no
 * entities, WITHHELD_FINGERPRINT), records a workstream declaration, and records the manifest
 * fingerprint and the secret policy version the sources were checked under. Answers, per source
 * whose entities changed, which ones did (what the caller records as `source.projected`).
 */
export async function applyReindex(
  tx: LedgerTx,
  projectId: string,
  plan: ReindexPlan,
  revision: number,
): Promise<SourceProjection[]> {
  const { changes } = plan;
  const removed = changes.removed_paths;
  const replaced = [...plan.parsed.map((p) => p.read.path), ...plan.withheld.map((r) => r.path)];
  const before = new Map<string, EntityContent[]>();
  for (const path of [...removed, ...replaced]) before.set(path, await entityContents(tx, path));
  for (const path of [...removed, ...replaced]) {
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
  for (const read of plan.withheld) {
    const snapshot = {
      ...read.snapshot,
      fingerprint: WITHHELD_FINGERPRINT,
      size: -1,
      mtime_ms: -1,
    };
    await writeSource(tx, projectId, { ...read, snapshot }, EMPTY, revision);
  }
  if (plan.workstreams !== undefined) await writeWorkstreamCatalog(tx, plan.workstreams, revision);
  await tx
    .updateTable("project_state")
    .set({
      manifest_fingerprint: plan.loaded.fingerprint,
      secret_policy_version: SECRET_POLICY_VERSION,
    })
    .execute();
  const projections: SourceProjection[] = [];
  for (const path of [...new Set([...replaced, ...removed])]) {
    const after = removed.includes(path) ? [] : await entityContents(tx, path);
    const found = entityChanges(projectId, before.get(path) ?? [], after);
    if (found.length > 0) projections.push({ source: path, changes: found });
  }
  return projections;
}

const EMPTY: AdapterResult = { entities: [], dependencies: [], issues: [] };

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
