import type { Kysely } from "kysely";
import type { SessionTable } from "../core/runtime-tables.js";
import { tableExists } from "../read/entity-view.js";
import {
  type CheckpointView,
  checkpointView,
  type WaitView,
  waitView,
} from "../runtime/runtime-views.js";
import type { LedgerSchema } from "../storage/schema.js";

/** A wait as continuity carries it: the same view the session tools return. */
export type ContinuityWait = WaitView;

/** What a resumed session's predecessor left: its waits, last checkpoint and open loops. */
export interface ContinuityPredecessor {
  session_id: string;
  status: string;
  end_revision: number | null;
  last_checkpoint: CheckpointView | null;
  open_loops: string[];
  waits: ContinuityWait[];
}

/**
 * Continuity: what the conversation needs carried into its next turn and into a resumed
 * successor. It sits beside the packet and outside it: not rendered, not in token_estimate or
 * the budget, not in context_hash (a reply does not change the facts the packet states).
 */
export interface Continuity {
  session_id: string | null;
  /**
   * The waits of this session and of the sessions it was resumed from (each names its
   * session_id), newest first, as awr_session_get lists them: a successor sees the question its
   * predecessor asked and the reply the user gave. Pending ones block writes until replied to.
   */
  waits: ContinuityWait[];
  /** The ids of the pending (`waiting_user`) waits among `waits`. */
  pending_wait_ids: string[];
  /** The sessions this one was resumed from, nearest first (at most 32). */
  predecessors: ContinuityPredecessor[];
}

export const NO_CONTINUITY: Continuity = {
  session_id: null,
  waits: [],
  pending_wait_ids: [],
  predecessors: [],
};

const MAX_PREDECESSORS = 32;

/** The predecessor chain of a session, nearest first. */
export async function predecessorChain(
  db: Kysely<LedgerSchema>,
  session: SessionTable,
): Promise<SessionTable[]> {
  const chain: SessionTable[] = [];
  const seen = new Set([session.id]);
  let next = session.predecessor;
  while (next !== null && !seen.has(next) && chain.length < MAX_PREDECESSORS) {
    seen.add(next);
    const row = await db
      .selectFrom("sessions")
      .selectAll()
      .where("id", "=", next)
      .executeTakeFirst();
    if (row === undefined) break;
    chain.push(row);
    next = row.predecessor;
  }
  return chain;
}

export async function continuityOf(
  db: Kysely<LedgerSchema>,
  session: SessionTable | null,
): Promise<Continuity> {
  if (session === null) return NO_CONTINUITY;
  const chain = await predecessorChain(db, session);
  const ids = [session.id, ...chain.map((s) => s.id)];
  const waits = (await tableExists(db, "waits"))
    ? (
        await db
          .selectFrom("waits")
          .selectAll()
          .where("session", "in", ids)
          .orderBy("created_revision", "desc")
          .orderBy("id", "desc")
          .execute()
      ).map(waitView)
    : [];
  const checkpoints =
    chain.length > 0 && (await tableExists(db, "checkpoints"))
      ? await db
          .selectFrom("checkpoints")
          .selectAll()
          .where(
            "session",
            "in",
            chain.map((s) => s.id),
          )
          .orderBy("revision", "desc")
          .execute()
      : [];
  return {
    session_id: session.id,
    waits,
    pending_wait_ids: waits.filter((w) => w.status === "waiting_user").map((w) => w.id),
    predecessors: chain.map((p) => {
      const row = checkpoints.find((c) => c.session === p.id);
      const last = row === undefined ? null : checkpointView(row);
      return {
        session_id: p.id,
        status: p.status,
        end_revision: p.end_revision === null ? null : Number(p.end_revision),
        last_checkpoint: last,
        open_loops: last?.open_loops ?? [],
        // Oldest first within one predecessor, as this field has always listed them.
        waits: waits.filter((w) => w.session_id === p.id).reverse(),
      };
    }),
  };
}
