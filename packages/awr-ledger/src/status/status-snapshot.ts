import type { Kysely } from "kysely";
import { sql } from "../internal/kysely.js";
import type { ActiveClaim } from "../read/entity-view.js";
import { activeClaims, tableExists } from "../read/entity-view.js";
import type { Projection } from "../read/projection.js";
import { readStateAt } from "../read/projection-cache.js";
import { assessEvidence } from "../read/read-extras.js";
import { missingSourceIssues } from "../read/source-issues.js";
import type { BriefRevisions } from "../read/work-brief.js";
import type { SourceIssue } from "../sources/adapters/index.js";
import { inReadSnapshot, readClock } from "../storage/read-clock.js";
import type { LedgerSchema } from "../storage/schema.js";

/** A project-wide runtime finding: a request whose outcome is unknown, or a pending wait. */
export interface RuntimeFinding {
  code: string;
  kind: string;
  id: string;
}

/** Pending user waits of sessions bound to work on `branch`, by work key, oldest first. */
async function pendingWaits(
  db: Kysely<LedgerSchema>,
  branch: string | null,
): Promise<Map<string, string[]>> {
  const byWork = new Map<string, string[]>();
  if (!(await tableExists(db, "waits"))) return byWork;
  const rows = await db
    .selectFrom("waits as w")
    .innerJoin("sessions as s", "s.id", "w.session")
    .select(["w.id", "s.work"])
    .where("w.status", "=", "waiting_user")
    .where((eb) => (branch === null ? eb("s.branch", "is", null) : eb("s.branch", "=", branch)))
    .orderBy("w.created_revision")
    .orderBy("w.id")
    .execute();
  for (const row of rows) {
    if (row.work === null) continue;
    const list = byWork.get(row.work) ?? [];
    list.push(row.id);
    byWork.set(row.work, list);
  }
  return byWork;
}

/** Where a runtime finding comes from: the table, the status that makes a row one, its labels. */
const FINDING_SOURCES = [
  { table: "operations", status: "started", code: "operation_outcome_unknown", kind: "operation" },
  { table: "waits", status: "waiting_user", code: "wait_pending", kind: "wait" },
] as const;

/** Runtime findings project-wide: requests whose outcome is unknown, then pending waits. */
export async function pendingFindings(db: Kysely<LedgerSchema>): Promise<RuntimeFinding[]> {
  const findings: RuntimeFinding[] = [];
  for (const { table, status, code, kind } of FINDING_SOURCES) {
    if (!(await tableExists(db, table))) continue;
    const rows = await db
      .selectFrom(table)
      .select("id")
      .where("status", "=", status)
      .orderBy("id")
      .execute();
    for (const row of rows) findings.push({ code, kind, id: row.id });
  }
  return findings;
}

/** Completed work items with recorded evidence verified at `sha` on `branch`. */
async function verifiedAt(
  db: Kysely<LedgerSchema>,
  sha: string,
  branch: string | null,
): Promise<Set<string>> {
  const rows = await db
    .selectFrom("evidence")
    .select(["work", "source_sha", "branch"])
    .where(sql<boolean>`lower(source_sha) = ${sha.toLowerCase()}`)
    .execute();
  const verified = new Set<string>();
  for (const row of rows) {
    if (row.work === null) continue;
    const assessed = assessEvidence(
      { source_sha: row.source_sha ?? null, branch_id: row.branch ?? null },
      sha,
      branch,
    );
    if (assessed.currency === "current") verified.add(row.work);
  }
  return verified;
}

/** What one status answer reads: the projection and the runtime rows of one read snapshot. */
export interface StatusSnapshot {
  /** The project revision of the snapshot. */
  revision: number;
  projection: Projection;
  claims: ActiveClaim[];
  revisions: BriefRevisions;
  sources: { path: string; fingerprint: string }[];
  sourceIssues: SourceIssue[];
  waits: Map<string, string[]>;
  findings: RuntimeFinding[];
  /** Work with evidence verified at `sha` (when given). */
  verified: Set<string> | undefined;
}

/**
 * Reads a status answer's inputs from ONE read snapshot (inReadSnapshot): the claims, waits,
 * requests, sources and evidence rows of one commit, and the cached projection only when its
 * generation is that commit's (else the projection is brought up to date and the snapshot read
 * again), so the totals, queues and pages of an answer describe one state under concurrent
 * writes.
 */
export async function readStatusSnapshot(
  db: Kysely<LedgerSchema>,
  revision: number,
  branch: string | null,
  sha: string | undefined,
): Promise<StatusSnapshot> {
  let at = revision;
  for (;;) {
    const { projection } = await readStateAt(db, at);
    const read = await inReadSnapshot(db, async (tx) => {
      const clock = await readClock(tx);
      if (clock.generation !== projection.generation) return clock.revision;
      const [claims, sources, sourceIssues, waits, findings, verified] = await Promise.all([
        activeClaims(tx, branch),
        tx
          .selectFrom("sources")
          .select(["path", "fingerprint", "indexed_revision"])
          .orderBy("path")
          .execute(),
        missingSourceIssues(tx),
        pendingWaits(tx, branch),
        pendingFindings(tx),
        sha === undefined ? Promise.resolve(undefined) : verifiedAt(tx, sha, branch),
      ]);
      const revisions: BriefRevisions = {
        entities: projection.revisions,
        sources: new Map(sources.map((s) => [s.path, Number(s.indexed_revision)])),
      };
      return {
        revision: clock.revision,
        projection,
        claims,
        revisions,
        sources: sources.map(({ path, fingerprint }) => ({ path, fingerprint })),
        sourceIssues,
        waits,
        findings,
        verified,
      } satisfies StatusSnapshot;
    });
    if (typeof read !== "number") return read;
    at = read;
  }
}
