import type { Kysely } from "kysely";
// The runtime tables' schema (this plan reads `sessions`), so the file type-checks on its own
// when an entry reaches it without the runtime, as `@awr/awr-ledger/sources` does.
import "../core/runtime-tables.js";
import { type AwrErrorCode, LedgerError } from "../errors.js";
import type { AdapterResult } from "../sources/adapters/types.js";
import type { ReadSource } from "../sources/read-sources.js";
import type { LedgerTx } from "../storage/ledger-store.js";
import type { LedgerSchema } from "../storage/schema.js";
import "./workstream-catalog.js";
import type {
  WorkstreamDeclaration,
  WorkstreamDefinition,
} from "../sources/adapters/workstream-format.js";

/** A declaration a reindex will record, checked against what was recorded before. */
export interface PlannedCatalog {
  source_path: string;
  declaration: WorkstreamDeclaration;
  /** True when this reindex enables workstreams (nothing was recorded before). */
  enables: boolean;
}

interface Parsed {
  read: ReadSource;
  result: AdapterResult;
}

function refuse(
  code: AwrErrorCode,
  path: string,
  line: number | null,
  message: string,
): LedgerError {
  return new LedgerError(
    code,
    `Cannot index ${path}${line === null ? "" : `:${line}`}: ${message}. The previous projection is unchanged.`,
    { issues: [{ path, line, severity: "error", message }] },
  );
}

/**
 * The workstream rules of one reindex (docs/compatibility/workstreams.md); checked before anything
 * is written, so a refusal changes nothing:
 * - at most one ledger declares workstreams, and once a project serves them that ledger keeps
 *   declaring them (it cannot be removed from the manifest or lose its `workstreams:` block);
 * - the declaring ledger holds every work item of the project (no work in another source);
 * - an id keeps its external_key and the reverse; a recorded workstream is archived, never
 *   removed; authority_version never drops, and a change of authority (state, goal_keys,
 *   acceptance_contracts) needs a higher one;
 * - every goal key names a goal of the project;
 * - a work item with history (events, evidence, sessions) keeps its workstream.
 * Returns the declaration to record, or undefined when the workstreams are unaffected.
 */
export async function planWorkstreamCatalog(
  db: Kysely<LedgerSchema>,
  parsed: readonly Parsed[],
  removed: readonly string[],
): Promise<PlannedCatalog | undefined> {
  const catalog = await db.selectFrom("workstream_catalog").selectAll().executeTakeFirst();
  const declaring = parsed.filter((p) => p.result.workstreams !== undefined);
  const recordedPath = catalog?.source_path;
  if (declaring.length > 1) {
    const [a, b] = declaring as [Parsed, Parsed];
    throw refuse(
      "SourceConflict",
      b.read.path,
      null,
      `workstreams are declared by ${a.read.path} already; one ledger declares every workstream`,
    );
  }
  const declared = declaring[0];
  if (recordedPath !== undefined) {
    if (removed.includes(recordedPath)) {
      throw refuse(
        "SourceConflict",
        recordedPath,
        null,
        "it declares this project's workstreams, which stay once enabled; put the source back in .awr/project.toml",
      );
    }
    const reparsed = parsed.find((p) => p.read.path === recordedPath);
    if (reparsed !== undefined && reparsed.result.workstreams === undefined) {
      throw refuse(
        "SourceConflict",
        recordedPath,
        null,
        "it no longer declares workstreams (adapter yaml-workstream-ledger-v1 with a workstreams: block); the declaration stays once enabled: archive a workstream instead of removing it",
      );
    }
    if (declared !== undefined && declared.read.path !== recordedPath) {
      throw refuse(
        "SourceConflict",
        declared.read.path,
        null,
        `this project's workstreams are declared by ${recordedPath}; declare them there only`,
      );
    }
  }
  const owner = declared?.read.path ?? recordedPath;
  if (owner === undefined) return undefined;
  await refuseWorkOutside(db, owner, parsed, removed);
  if (declared === undefined) return undefined;
  const declaration = declared.result.workstreams as WorkstreamDeclaration;
  await checkSuccession(db, owner, declaration.definitions);
  await checkGoals(db, owner, parsed, removed, declaration.definitions);
  await checkMoves(db, owner, declaration);
  return { source_path: owner, declaration, enables: recordedPath === undefined };
}

/** Work of a workstream project lives in its declaring ledger only. */
async function refuseWorkOutside(
  db: Kysely<LedgerSchema>,
  owner: string,
  parsed: readonly Parsed[],
  removed: readonly string[],
): Promise<void> {
  for (const { read, result } of parsed) {
    if (read.path === owner) continue;
    const work = result.entities.find((e) => e.kind === "work");
    if (work !== undefined) {
      throw refuse(
        "SourceConflict",
        read.path,
        work.line_start,
        `work item ${work.key} is outside ${owner}, the ledger that declares the workstreams; a workstream project keeps every work item there`,
      );
    }
  }
  const touched = [owner, ...removed, ...parsed.map((p) => p.read.path)];
  const kept = await db
    .selectFrom("entities")
    .select(["key", "source_path", "line_start"])
    .where("kind", "=", "work")
    .where("source_path", "not in", touched)
    .executeTakeFirst();
  if (kept !== undefined) {
    throw refuse(
      "SourceConflict",
      kept.source_path,
      Number(kept.line_start),
      `work item ${kept.key} is outside ${owner}, the ledger that declares the workstreams; a workstream project keeps every work item there`,
    );
  }
}

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && new Set([...a, ...b]).size === new Set(a).size;

/** Immutable ids and keys, no removal, and authority versions that move forward only. */
async function checkSuccession(
  db: Kysely<LedgerSchema>,
  owner: string,
  definitions: readonly WorkstreamDefinition[],
): Promise<void> {
  const recorded = await db.selectFrom("workstreams").selectAll().execute();
  for (const old of recorded) {
    if (!definitions.some((d) => d.id === old.id)) {
      throw refuse(
        "SourceConflict",
        owner,
        null,
        `workstream ${old.external_key} (${old.id}) is no longer declared; a workstream is archived (state: archived, with a higher authority_version), never removed`,
      );
    }
  }
  for (const next of definitions) {
    const old =
      recorded.find((r) => r.id === next.id) ??
      recorded.find((r) => r.external_key === next.external_key);
    if (old === undefined) continue;
    if (old.id !== next.id || old.external_key !== next.external_key) {
      throw refuse(
        "WorkstreamBindingMismatch",
        owner,
        next.line,
        `workstream ids and external keys are immutable: ${old.id} is ${old.external_key}, not ${next.id === old.id ? next.external_key : `${next.id} ${next.external_key}`}`,
      );
    }
    const version = Number(old.authority_version);
    if (next.authority_version < version) {
      throw refuse(
        "WorkstreamStaleAuthority",
        owner,
        next.line,
        `workstream ${next.external_key}: authority_version ${next.authority_version} is lower than the recorded ${version}; it never decreases`,
      );
    }
    const changed = [
      old.state !== next.state ? "state" : null,
      sameSet(JSON.parse(old.goal_keys) as string[], next.goal_keys) ? null : "goal_keys",
      sameSet(JSON.parse(old.acceptance_contracts) as string[], next.acceptance_contracts)
        ? null
        : "acceptance_contracts",
    ].filter((c) => c !== null);
    if (changed.length > 0 && next.authority_version === version) {
      throw refuse(
        "WorkstreamStaleAuthority",
        owner,
        next.line,
        `workstream ${next.external_key} changed its ${changed.join(", ")}, a change of authority: raise authority_version to ${version + 1} (and grant the new version to its readers)`,
      );
    }
  }
}

/** Every goal key names a goal the project defines after this reindex. */
async function checkGoals(
  db: Kysely<LedgerSchema>,
  owner: string,
  parsed: readonly Parsed[],
  removed: readonly string[],
  definitions: readonly WorkstreamDefinition[],
): Promise<void> {
  const touched = [...removed, ...parsed.map((p) => p.read.path)];
  const kept = await db
    .selectFrom("entities")
    .select("key")
    .where("kind", "=", "goal")
    .where("source_path", "not in", touched.length > 0 ? touched : [""])
    .execute();
  const goals = new Set([
    ...kept.map((g) => g.key),
    ...parsed.flatMap((p) => p.result.entities.filter((e) => e.kind === "goal").map((e) => e.key)),
  ]);
  for (const definition of definitions) {
    const missing = definition.goal_keys.find((key) => !goals.has(key));
    if (missing !== undefined) {
      throw refuse(
        "SourceConflict",
        owner,
        definition.line,
        `workstream ${definition.external_key} names goal ${missing}, which no source defines; define the goal or remove the key`,
      );
    }
  }
}

/** A work item with recorded history keeps the workstream it had (no silent move). */
async function checkMoves(
  db: Kysely<LedgerSchema>,
  owner: string,
  declaration: WorkstreamDeclaration,
): Promise<void> {
  const before = new Map(
    (await db.selectFrom("workstream_ownership").selectAll().execute()).map((r) => [
      r.work,
      r.workstream_id,
    ]),
  );
  const moved = declaration.ownership.filter(
    (o) => before.has(o.work) && before.get(o.work) !== o.workstream_id,
  );
  for (const { work } of moved) {
    const [event, evidence, session] = await Promise.all([
      db.selectFrom("events").select("id").where("work", "=", work).executeTakeFirst(),
      db.selectFrom("evidence").select("id").where("work", "=", work).executeTakeFirst(),
      db.selectFrom("sessions").select("id").where("work", "=", work).executeTakeFirst(),
    ]);
    if (event !== undefined || evidence !== undefined || session !== undefined) {
      throw refuse(
        "SourceConflict",
        owner,
        null,
        `work item ${work} moved to another workstream, but it has recorded sessions, events or evidence in its workstream; moving it needs a runtime migration this build does not have: keep its workstream`,
      );
    }
  }
}

/** Records a planned declaration inside the reindex transaction, at `revision`. */
export async function writeWorkstreamCatalog(
  tx: LedgerTx,
  planned: PlannedCatalog,
  revision: number,
): Promise<void> {
  const { declaration } = planned;
  const previous = await tx.selectFrom("workstream_catalog").selectAll().executeTakeFirst();
  await tx.deleteFrom("workstream_catalog").execute();
  await tx
    .insertInto("workstream_catalog")
    .values({
      source_path: planned.source_path,
      version: declaration.version,
      legacy_default: declaration.legacy_default,
      enabled_revision: Number(previous?.enabled_revision ?? revision),
      indexed_revision: revision,
    })
    .execute();
  for (const [ordinal, d] of declaration.definitions.entries()) {
    const row = {
      external_key: d.external_key,
      title: d.title,
      state: d.state,
      authority_version: d.authority_version,
      goal_keys: JSON.stringify(d.goal_keys),
      acceptance_contracts: JSON.stringify(d.acceptance_contracts),
      line: d.line,
      ordinal,
      indexed_revision: revision,
    };
    await tx
      .insertInto("workstreams")
      .values({ id: d.id, ...row })
      .onConflict((oc) => oc.column("id").doUpdateSet(row))
      .execute();
  }
  await tx.deleteFrom("workstream_ownership").execute();
  for (let i = 0; i < declaration.ownership.length; i += 200) {
    await tx
      .insertInto("workstream_ownership")
      .values(declaration.ownership.slice(i, i + 200))
      .execute();
  }
}
