import type { Kysely } from "kysely";
import type { LedgerValue } from "../sources/ledger-text-edit.js";
import type { LedgerSchema, SourceChangeTable } from "../storage/schema.js";
import type { ChangeIdentity } from "./change-identity.js";

/**
 * The durable journal of reviewed source changes (table source_changes, migration 014). A
 * change is journaled before its source is touched and moves through its phases, each recorded
 * in its own transaction, so a process killed at any point leaves a row saying how far it got:
 *
 * - `prepared`: reviewed and journaled; the source may or may not have been written;
 * - `source_written`: the source holds the reviewed bytes; not yet reindexed;
 * - `completed`: written and reindexed; `no_change`: the source already read so, nothing written;
 * - `stopped`: the source was edited outside before the write; it was left as it was.
 *
 * Recording a phase never spends a project revision: only the reindex of the written source does.
 */
export const CHANGE_PHASES = [
  "prepared",
  "source_written",
  "completed",
  "no_change",
  "stopped",
] as const;
export type ChangePhase = (typeof CHANGE_PHASES)[number];

/** The reviewed plan a journal row keeps: enough to redo the write, never the source text. */
export interface RecordedPlan {
  /** The change as normalized for apply (what a replay must repeat). */
  change: Record<string, unknown>;
  reason: string;
  work: string;
  /** The fields to write, our field names. */
  fields: Record<string, LedgerValue>;
  /** The fields whose value the change alters, and their values before it. */
  changed: string[];
  previous: Record<string, unknown>;
  /** A kind's own facts about the plan (create: the new record; batch: each edit's outcome). */
  details?: Record<string, unknown>;
}

export interface ChangeRecord {
  identity: ChangeIdentity;
  request_hash: string;
  preview_fingerprint: string;
  phase: ChangePhase;
  source_path: string | null;
  before_fingerprint: string | null;
  after_fingerprint: string | null;
  plan: RecordedPlan;
  outcome: Record<string, unknown> | null;
  base_revision: number;
  project_revision: number;
  created_at: string;
  updated_at: string;
}

type Db = Kysely<LedgerSchema>;

function fromRow(row: SourceChangeTable): ChangeRecord {
  return {
    identity: {
      project_id: row.project_id,
      client: row.client,
      kind: row.change_kind as ChangeIdentity["kind"],
      request_id: row.request_id,
      request_key: row.request_key,
    },
    request_hash: row.request_hash,
    preview_fingerprint: row.preview_fingerprint,
    phase: row.phase as ChangePhase,
    source_path: row.source_path,
    before_fingerprint: row.before_fingerprint,
    after_fingerprint: row.after_fingerprint,
    plan: JSON.parse(row.plan) as RecordedPlan,
    outcome: row.outcome === null ? null : (JSON.parse(row.outcome) as Record<string, unknown>),
    base_revision: Number(row.base_revision),
    project_revision: Number(row.project_revision),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The journaled change of this identity, if any (its owner's only: the key includes the client). */
export async function findChange(
  db: Db,
  identity: ChangeIdentity,
): Promise<ChangeRecord | undefined> {
  const row = await db
    .selectFrom("source_changes")
    .selectAll()
    .where("request_key", "=", identity.request_key)
    .where("project_id", "=", identity.project_id)
    .where("client", "=", identity.client)
    .executeTakeFirst();
  return row === undefined ? undefined : fromRow(row);
}

export async function insertChange(db: Db, record: ChangeRecord): Promise<void> {
  await db
    .insertInto("source_changes")
    .values({
      request_key: record.identity.request_key,
      project_id: record.identity.project_id,
      client: record.identity.client,
      change_kind: record.identity.kind,
      request_id: record.identity.request_id,
      request_hash: record.request_hash,
      preview_fingerprint: record.preview_fingerprint,
      phase: record.phase,
      source_path: record.source_path,
      before_fingerprint: record.before_fingerprint,
      after_fingerprint: record.after_fingerprint,
      plan: JSON.stringify(record.plan),
      outcome: record.outcome === null ? null : JSON.stringify(record.outcome),
      base_revision: record.base_revision,
      project_revision: record.project_revision,
      created_at: record.created_at,
      updated_at: record.updated_at,
    })
    .execute();
}

/** Records the change's next phase (and its outcome and revision) in place. */
export async function updateChange(
  db: Db,
  record: ChangeRecord,
  changes: {
    phase: ChangePhase;
    outcome?: Record<string, unknown> | null;
    project_revision?: number;
    at: string;
  },
): Promise<ChangeRecord> {
  const next: ChangeRecord = {
    ...record,
    phase: changes.phase,
    outcome: changes.outcome === undefined ? record.outcome : changes.outcome,
    project_revision: changes.project_revision ?? record.project_revision,
    updated_at: changes.at,
  };
  await db
    .updateTable("source_changes")
    .set({
      phase: next.phase,
      outcome: next.outcome === null ? null : JSON.stringify(next.outcome),
      project_revision: next.project_revision,
      updated_at: next.updated_at,
    })
    .where("request_key", "=", record.identity.request_key)
    .execute();
  return next;
}
