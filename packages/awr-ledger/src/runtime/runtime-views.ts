import type { CheckpointTable, SessionTable, WaitTable } from "../core/runtime-tables.js";
import { entityId } from "../projection/entity-id.js";

// Runtime rows as tools return them (JSON arrays parsed, numbers normalised, times in ms).

/**
 * A session as tools return it: everything but the owning client, the agent and the last
 * checkpoint under the names `agent_id` and `last_checkpoint_id`, and these
 * identities beside our keys (docs/compatibility/runtime.md): `project_id`, `work_item_id`
 * (the work item's entity id, as `object show work` answers it) and `start_project_revision` (the same as `start_revision`).
 */
export type SessionView = Omit<SessionTable, "client" | "agent" | "last_checkpoint" | "branch"> & {
  project_id: string;
  work_item_id: string | null;
  agent_id: string;
  last_checkpoint_id: string | null;
  start_project_revision: number;
  /** The work branch it runs on (null = main); fixed at start. */
  branch_id: string | null;
};

/** `projectId`: the ledger's project, whose id the work item's entity id is derived from. */
export function sessionView(row: SessionTable, projectId: string): SessionView {
  return {
    id: row.id,
    project_id: projectId,
    work_item_id: row.work === null ? null : entityId(projectId, row.work),
    conversation: row.conversation,
    work: row.work,
    agent_id: row.agent,
    provider: row.provider,
    model: row.model,
    status: row.status,
    predecessor: row.predecessor,
    successor: row.successor,
    summary: row.summary,
    last_checkpoint_id: row.last_checkpoint,
    start_revision: Number(row.start_revision),
    start_project_revision: Number(row.start_revision),
    end_revision: row.end_revision === null ? null : Number(row.end_revision),
    started_at: row.started_at,
    ended_at: row.ended_at,
    branch_id: row.branch ?? null,
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
  /** Its session's branch (null = main). */
  branch_id: string | null;
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
    branch_id: row.branch ?? null,
  };
}

/** A wait as tools return it: the question, its status and the user's reply. */
export interface WaitView {
  id: string;
  session_id: string;
  checkpoint_id: string | null;
  question: string;
  /** waiting_user | answered | cancelled */
  status: string;
  /** The user's reply, or the reason given with a cancellation. */
  reply: string | null;
  created_revision: number;
  replied_revision: number | null;
}

export function waitView(row: WaitTable): WaitView {
  return {
    id: row.id,
    session_id: row.session,
    checkpoint_id: row.checkpoint,
    question: row.question,
    status: row.status,
    reply: row.answer,
    created_revision: Number(row.created_revision),
    replied_revision: row.replied_revision === null ? null : Number(row.replied_revision),
  };
}
