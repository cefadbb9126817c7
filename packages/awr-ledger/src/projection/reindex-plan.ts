import type { Kysely } from "kysely";
import { LedgerError } from "../errors.js";
import { SECRET_POLICY_VERSION } from "../secrets/policy.js";
import type { AdapterResult, SourceIssue } from "../sources/adapters/index.js";
import {
  type LoadedManifest,
  MANIFEST_PATH,
  parseSource,
  type ReadSource,
  readManifestSources,
} from "../sources/read-sources.js";
import { isSecretIssue } from "../sources/source-secrets.js";
import type { LedgerSchema } from "../storage/schema.js";
import { type PlannedCatalog, planWorkstreamCatalog } from "./workstream-catalog-plan.js";

export interface SourceIndexState {
  path: string;
  domain: string;
  adapter: string;
  /**
   * What the ledger records for the source after this reindex: the content just indexed, the
   * unchanged one, the last one of a removed source; for a source held back, the content its
   * kept projection came from (`withheld` when none is kept), never the content refused.
   */
  fingerprint: string;
  entity_count: number;
  /**
   * `held_back`: the file changed but holds a credential, so it was not indexed: its previous
   * projection is kept (or it has none) and it stays not fresh until the file is clean.
   */
  state: "indexed" | "unchanged" | "removed" | "held_back";
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
  /**
   * Warnings found while parsing the changed sources, and the RuleViolation issues of sources
   * held back because they hold a credential (other errors refuse the whole index).
   */
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
  /**
   * Units held back because they hold a credential and never indexed before, or indexed from
   * these same bytes under an older secret policy: recorded with WITHHELD_FINGERPRINT and no
   * entities, so freshness checks report them changed (not fresh) until the file is clean. A
   * held-back unit indexed from other bytes keeps its row and projection.
   */
  withheld: ReadSource[];
  /** The workstream declaration to record, when a changed source declares one. */
  workstreams?: PlannedCatalog | undefined;
}

export { readManifestSources };

/** The fingerprint recorded for a held-back unit never indexed: no file content hashes to it. */
export const WITHHELD_FINGERPRINT = "withheld";

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
type RecordedState = Awaited<ReturnType<typeof readRecorded>>["state"];

/** What the last index recorded: the manifest fingerprint and one row per indexed source. */
async function readRecorded(db: Kysely<LedgerSchema>) {
  const state = await db
    .selectFrom("project_state")
    .select(["manifest_fingerprint", "secret_policy_version"])
    .executeTakeFirst();
  const rows = await db.selectFrom("sources").selectAll().execute();
  return { state, rows };
}

/**
 * The one staleness rule of a reindex: a source changed when it was never indexed, its content
 * (sha256) differs from the recorded one, or the manifest now gives it another adapter or
 * domain; a recorded source the manifest no longer lists is removed; the manifest itself
 * changed when its fingerprint differs. Every source changed when the last index checked them
 * under an older secret policy than this code's (migration 012): a newer policy may refuse what
 * an unchanged file holds.
 */
function compareRecorded(
  loaded: LoadedManifest,
  reads: readonly ReadSource[],
  state: RecordedState | undefined,
  rows: readonly RecordedSource[],
  force: boolean,
): { changed: ReadSource[]; removed: string[]; manifestChanged: boolean } {
  const recorded = new Map(rows.map((row) => [row.path, row]));
  const policyBehind =
    state !== undefined && Number(state.secret_policy_version) < SECRET_POLICY_VERSION;
  const changed = reads.filter((read) => {
    const row = recorded.get(read.path);
    return (
      force ||
      policyBehind ||
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
  const unchangedPlan = (issues: SourceIssue[]): ReindexPlan => ({
    loaded,
    unchanged: true,
    changes: {
      reindexed: false,
      changed_paths: [],
      added_paths: [],
      removed_paths: [],
      sources,
      issues,
    },
    parsed: [],
    withheld: [],
  });
  if (changed.length === 0 && removed.length === 0 && !manifestChanged) return unchangedPlan([]);

  const parsed: ReindexPlan["parsed"] = [];
  const held: ReindexPlan["parsed"] = [];
  // The fingerprint a held-back unit keeps: what was recorded for it, unless nothing was, or it
  // was recorded from these very bytes (indexed under an older secret policy that let the
  // credential through). Undefined: the unit is withheld.
  const keptFingerprint = (read: ReadSource): string | undefined => {
    const previous = recorded.get(read.path)?.fingerprint;
    return previous === read.snapshot.fingerprint ? undefined : previous;
  };
  for (const read of [...changed]) {
    const result = await parseCached(read, options.cache, options.signal);
    if (!result.issues.some(isSecretIssue)) {
      parsed.push({ read, result });
      continue;
    }
    // Held back: its previous projection stays, or it is recorded with no entities (withheld,
    // never fresh). Reported as held back, never as unchanged: the file did change.
    held.push({ read, result });
    changed.splice(changed.indexOf(read), 1);
    const entry = sources.find((s) => s.path === read.path) as SourceIndexState;
    entry.state = "held_back";
    const kept = keptFingerprint(read);
    entry.fingerprint = kept ?? WITHHELD_FINGERPRINT;
    if (kept === undefined) entry.entity_count = 0;
  }
  const heldIssues = held.flatMap((h) => h.result.issues.filter(isSecretIssue));
  const withheld = held.map((h) => h.read).filter((read) => keptFingerprint(read) === undefined);
  if (changed.length === 0 && removed.length === 0 && !manifestChanged && withheld.length === 0) {
    return unchangedPlan(heldIssues);
  }
  const issues = [...parsed.flatMap((p) => p.result.issues), ...heldIssues];
  const errors = issues.filter((i) => i.severity === "error" && !isSecretIssue(i));
  if (errors.length > 0) throw sourceErrorRefusal(errors);
  await refuseKeyClashes(db, [...removed, ...changed.map((c) => c.path)], parsed);
  const workstreams = await planWorkstreamCatalog(db, parsed, removed);
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
    withheld,
    workstreams,
  };
}

/**
 * The refusal of a reindex whose parsed sources have errors (other than credentials, which
 * hold a source back): the first one's code (InvalidInput unless the issue names another),
 * file and line, how many more there are, and that nothing changed. `awr source scan` and
 * `awr doctor` report a source the same way (stale-check.ts).
 */
export function sourceErrorRefusal(errors: readonly SourceIssue[]): LedgerError {
  const first = errors[0] as SourceIssue;
  return new LedgerError(
    first.code ?? "InvalidInput",
    `Cannot index ${first.path}${first.line === null ? "" : `:${first.line}`}: ${first.message}` +
      (errors.length > 1 ? ` (and ${errors.length - 1} more problem(s))` : "") +
      ". Fix the source and reindex; the previous projection is unchanged.",
    { issues: [...errors] },
  );
}

export function keyClash(
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
