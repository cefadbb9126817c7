import type { Generated } from "kysely";

/**
 * The ledger's table shapes as kysely sees them. Both backends store the same column types:
 * integers for revisions and sequence numbers, ISO-8601 text for times, and JSON as text (so a
 * row reads the same from SQLite and PostgreSQL). Migration 001 creates these tables; the
 * runtime tables (sessions, claims, checkpoints, waits, operations) are declared by migration 002
 * and added to `LedgerSchema` through declaration merging or an intersection type there.
 */

export interface ProjectStateTable {
  project_id: string;
  name: string;
  revision: number;
  /** The manifest fingerprint recorded by the last index (stale detection of the manifest). */
  manifest_fingerprint: string | null;
  created_at: string;
  /** The selected default work branch (migration 010); null = main. Project-wide. */
  current_branch_id: string | null;
  /**
   * The secret policy version the last index checked the sources under (migration 012; the
   * database gives a new row 3).
   */
  secret_policy_version: Generated<number>;
}

export interface MigrationTable {
  version: number;
  name: string;
  applied_at: string;
}

export interface ProjectLockTable {
  project_id: string;
  holder: string;
  /** Milliseconds since the epoch after which another holder may steal the lease. */
  expires_at: number;
  /** The holder's pid (migration 003; null in rows written before it). */
  holder_pid: number | null;
  /** The holder's pid-space key: hostname, plus boot id and pid namespace on Linux. */
  holder_host: string | null;
  /** The holder's process start time (Linux /proc/<pid>/stat field 22), guarding pid reuse. */
  holder_start: string | null;
}

export interface SourceTable {
  path: string;
  domain: string;
  role: string;
  adapter: string;
  fingerprint: string;
  size: number;
  mtime_ms: number;
  indexed_revision: number;
  entity_count: number;
  /** `file`, or `directory` for a markdown-directory-v1 directory (migration 006). */
  kind: string;
  /** JSON object text: the source's own note (a ledger's `current:` block), or null. */
  note: string | null;
}

export const ENTITY_KINDS = ["work", "goal", "plan", "rule", "decision", "milestone"] as const;
export type EntityKind = (typeof ENTITY_KINDS)[number];

export interface EntityTable {
  id: string;
  kind: string;
  key: string;
  title: string;
  status: string;
  raw_status: string | null;
  summary: string | null;
  body: string;
  /** JSON object text: adapter-specific fields (acceptance, tags, paths, severity, scope...). */
  attributes: string;
  source_path: string;
  line_start: number;
  line_end: number;
  /** Position within its source, so listings keep the author's order. */
  ordinal: number;
  indexed_revision: number;
}

export interface DependencyTable {
  work_key: string;
  depends_on: string;
  /** 1 = required (blocks readiness), 0 = optional. */
  required: number;
  source_path: string;
}

export interface EventTable {
  id: string;
  seq: number;
  revision: number;
  type: string;
  work: string | null;
  session: string | null;
  client: string | null;
  operation_id: string | null;
  /** Human summary; searchable. The payload is never indexed for search. */
  summary: string | null;
  payload: string;
  time: string;
  /** low | normal | high | critical (migration 008). */
  importance: string;
  /** The work branch (migration 010); null = main, and for the journal's own receipts. */
  branch: string | null;
}

export interface EvidenceTable {
  id: string;
  external_key: string;
  evidence_type: string;
  level: string;
  summary: string;
  locator: string | null;
  /** JSON array text. */
  scope: string;
  sha256: string | null;
  /** The source SHA the evidence was verified against (migration 008). */
  source_sha: string | null;
  command: string | null;
  verified_at: string | null;
  work: string | null;
  session: string | null;
  client: string | null;
  revision: number;
  recorded_at: string;
  /** The branch it was recorded on (migration 010); null = main. */
  branch: string | null;
}

/**
 * The durable journal of reviewed source changes (migration 014): one row per request identity
 * (project, client, change kind, request_id), kept apart from the MCP request journal so that
 * recording a change spends no project revision between its preview and its apply.
 */
export interface SourceChangeTable {
  /** sha256 of the identity: project, authenticated client, change kind, request_id. */
  request_key: string;
  project_id: string;
  client: string;
  change_kind: string;
  request_id: string;
  /** sha256 of the normalized request (kind, reason, change): a replay must match it. */
  request_hash: string;
  preview_fingerprint: string;
  /** prepared | source_written | completed | no_change | stopped. */
  phase: string;
  source_path: string | null;
  before_fingerprint: string | null;
  after_fingerprint: string | null;
  /** JSON object text: the reviewed plan (the change, its fields before and after). */
  plan: string;
  /** JSON object text: the reindex that completed it, or the failure that stopped it. */
  outcome: string | null;
  /** The project revision the change was reviewed and applied at. */
  base_revision: number;
  /** The project revision after its last recorded phase. */
  project_revision: number;
  created_at: string;
  updated_at: string;
}

export interface LedgerSchema {
  project_state: ProjectStateTable;
  awr_migrations: MigrationTable;
  project_locks: ProjectLockTable;
  sources: SourceTable;
  entities: EntityTable;
  dependencies: DependencyTable;
  events: EventTable;
  evidence: EvidenceTable;
  source_changes: SourceChangeTable;
}
