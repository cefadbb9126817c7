import type {
  CheckpointTable,
  ClaimTable,
  SessionTable,
  WaitTable,
} from "../core/runtime-tables.js";

// Runtime rows as tools return them (JSON arrays parsed, numbers normalised).

/** A session row as tools return it: everything but the owning client. */
export type SessionView = Omit<SessionTable, "client">;

export function sessionView(row: SessionTable): SessionView {
  return {
    id: row.id,
    conversation: row.conversation,
    work: row.work,
    agent: row.agent,
    provider: row.provider,
    model: row.model,
    status: row.status,
    predecessor: row.predecessor,
    successor: row.successor,
    summary: row.summary,
    last_checkpoint: row.last_checkpoint,
    start_revision: Number(row.start_revision),
    end_revision: row.end_revision === null ? null : Number(row.end_revision),
    started_at: row.started_at,
    ended_at: row.ended_at,
  };
}

export interface ClaimView {
  id: string;
  work: string;
  session: string;
  status: string;
  ttl_ms: number | null;
  /** ISO time after which the claim lapses, or null without a ttl. */
  expires_at: string | null;
  acquired_revision: number;
  ended_revision: number | null;
}

export function claimView(row: ClaimTable): ClaimView {
  return {
    id: row.id,
    work: row.work,
    session: row.session,
    status: row.status,
    ttl_ms: row.ttl_ms === null ? null : Number(row.ttl_ms),
    expires_at: row.expires_at === null ? null : new Date(Number(row.expires_at)).toISOString(),
    acquired_revision: Number(row.acquired_revision),
    ended_revision: row.ended_revision === null ? null : Number(row.ended_revision),
  };
}

export interface CheckpointView {
  id: string;
  session: string;
  revision: number;
  context_hash: string | null;
  digest: string;
  next_action: string | null;
  open_loops: string[];
  changed_entities: string[];
  created_at: string;
}

export function checkpointView(row: CheckpointTable): CheckpointView {
  return {
    id: row.id,
    session: row.session,
    revision: Number(row.revision),
    context_hash: row.context_hash,
    digest: row.digest,
    next_action: row.next_action,
    open_loops: JSON.parse(row.open_loops) as string[],
    changed_entities: JSON.parse(row.changed_entities) as string[],
    created_at: row.created_at,
  };
}

/** A wait row as tools return it: everything but its timestamps. */
export type WaitView = Omit<WaitTable, "created_at" | "replied_at">;

export function waitView(row: WaitTable): WaitView {
  return {
    id: row.id,
    session: row.session,
    checkpoint: row.checkpoint,
    question: row.question,
    status: row.status,
    answer: row.answer,
    created_revision: Number(row.created_revision),
    replied_revision: row.replied_revision === null ? null : Number(row.replied_revision),
  };
}
