/**
 * Row shapes of the runtime tables created by migration 002, merged into the
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
}

/**
 * A claim is in force while `status = 'active'` and `expires_at` is null or in the future.
 * Readers (ready work, status) must apply the same test; writers mark an outdated active claim
 * `expired` (with a `claim.expired` event) the next time they touch it.
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

declare module "../storage/schema.js" {
  interface LedgerSchema {
    sessions: SessionTable;
    claims: ClaimTable;
    checkpoints: CheckpointTable;
    waits: WaitTable;
    operations: OperationTable;
  }
}
