/**
 * Row shapes of the runtime tables created by migration 002 (and the branches of 010), merged into the
 * `LedgerSchema` so every kysely handle of the ledger sees them. JSON columns hold text.
 */

export const SESSION_STATUSES = ["active", "ended", "interrupted", "incomplete"] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];
export const SESSION_END_STATUSES = ["ended", "interrupted", "incomplete"] as const;
export type SessionEndStatus = (typeof SESSION_END_STATUSES)[number];

export const CLAIM_STATUSES = ["active", "released", "expired"] as const;
export type ClaimStatus = (typeof CLAIM_STATUSES)[number];

export const WAIT_STATUSES = ["waiting_user", "answered", "cancelled"] as const;
export type WaitStatus = (typeof WAIT_STATUSES)[number];

export const OPERATION_STATUSES = ["started", "finished"] as const;
export type OperationStatus = (typeof OPERATION_STATUSES)[number];
export const WRITE_OUTCOMES = ["committed", "not_committed", "unknown"] as const;
export type WriteOutcome = (typeof WRITE_OUTCOMES)[number];

export interface SessionTable {
  id: string;
  client: string;
  conversation: string;
  work: string | null;
  agent: string;
  provider: string;
  model: string;
  status: string;
  predecessor: string | null;
  successor: string | null;
  summary: string | null;
  last_checkpoint: string | null;
  start_revision: number;
  end_revision: number | null;
  started_at: string;
  ended_at: string | null;
  /** The work branch (migration 010); null = main. Set at insert, never changed. */
  branch: string | null;
}

/**
 * A claim is in force while `status = 'active'` and `expires_at` is null or in the future; the
 * rule has one home (claims/claim-in-force.ts), which readers and writers use. Writers mark an
 * outdated active claim `expired` (with a `claim.expired` event) the next time they touch it.
 */
export interface ClaimTable {
  id: string;
  work: string;
  session: string;
  client: string;
  status: string;
  ttl_ms: number | null;
  /** Milliseconds since the epoch. */
  expires_at: number | null;
  acquired_revision: number;
  ended_revision: number | null;
  acquired_at: string;
  ended_at: string | null;
  /** Its session's branch (migration 010); null = main. */
  branch: string | null;
}

export interface CheckpointTable {
  id: string;
  session: string;
  revision: number;
  context_hash: string | null;
  digest: string;
  next_action: string | null;
  /** JSON array text. */
  open_loops: string;
  /** JSON array text. */
  changed_entities: string;
  created_at: string;
  /** A copy of its session's branch (migration 010), so "latest on branch B" is one query. */
  branch: string | null;
}

export interface WaitTable {
  id: string;
  session: string;
  checkpoint: string | null;
  question: string;
  status: string;
  answer: string | null;
  created_revision: number;
  replied_revision: number | null;
  created_at: string;
  replied_at: string | null;
}

/** One request journal entry per (client, request_id); the project is the database. */
export interface OperationTable {
  id: string;
  client: string;
  request_id: string;
  tool: string;
  fingerprint: string;
  /** Canonical JSON of the arguments, kept for inspection. */
  arguments: string;
  status: string;
  write_outcome: string | null;
  /** JSON text of the recorded success result. */
  result: string | null;
  /** JSON text of the recorded `{code, message, details?}` error. */
  error: string | null;
  recovered: number;
  started_revision: number | null;
  finished_revision: number | null;
  started_at: string;
  finished_at: string | null;
}

export const BRANCH_STATUSES = ["active", "merged", "abandoned"] as const;
export type BranchStatus = (typeof BRANCH_STATUSES)[number];

/** A work branch (migration 010). Main has no row. */
export interface BranchTable {
  /** ULID. */
  id: string;
  /** Unique; 1..128 bytes, never `main`. */
  name: string;
  /** Null = main; a record only, nothing is inherited at runtime. */
  parent_branch_id: string | null;
  /** The Git ref as requested at creation; the observation is in the branch.created receipt. */
  git_ref: string | null;
  /** The creator's expected_revision: the branch's runtime history starts after it. */
  fork_revision: number;
  status: string;
  /** The row's own version: 1, 2 once closed. */
  revision: number;
  created_revision: number;
  created_at: string;
  closed_revision: number | null;
  closed_at: string | null;
}

declare module "../storage/schema.js" {
  interface LedgerSchema {
    branches: BranchTable;
    sessions: SessionTable;
    claims: ClaimTable;
    checkpoints: CheckpointTable;
    waits: WaitTable;
    operations: OperationTable;
  }
}
