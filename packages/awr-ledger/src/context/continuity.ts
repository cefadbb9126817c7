import type { Kysely } from "kysely";
import { LIMITS } from "../core/limits.js";
import type { SessionTable } from "../core/runtime-tables.js";
import { tableExists } from "../read/entity-view.js";
import { type WaitView, waitView } from "../runtime/runtime-views.js";
import type { LedgerSchema } from "../storage/schema.js";

/** A wait as continuity carries it: the same view the session tools return. */
export type ContinuityWait = WaitView;

/**
 * What a resumed session's predecessor left, by reference: its last checkpoint's id and open
 * loops, and the ids of its waits. The waits themselves are in `Continuity.waits` (each names
 * its session), and the nearest checkpoint is the packet's own (`checkpoint_id`, rendered in
 * the packet); awr_session_get reads any of them in full. Repeating them here made an answer
 * grow by a checkpoint digest and every wait per resume.
 */
export interface ContinuityPredecessor {
  session_id: string;
  status: string;
  end_revision: number | null;
  last_checkpoint_id: string | null;
  open_loops: string[];
  /** The ids of its waits in `Continuity.waits`, oldest first. */
  wait_ids: string[];
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

const MAX_PREDECESSORS = LIMITS.predecessors;

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
          .select(["id", "session", "open_loops"])
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
      const last = checkpoints.find((c) => c.session === p.id);
      return {
        session_id: p.id,
        status: p.status,
        end_revision: p.end_revision === null ? null : Number(p.end_revision),
        last_checkpoint_id: last?.id ?? null,
        open_loops: last === undefined ? [] : (JSON.parse(last.open_loops) as string[]),
        // Oldest first within one predecessor, as this field has always listed them.
        wait_ids: waits
          .filter((w) => w.session_id === p.id)
          .reverse()
          .map((w) => w.id),
      };
    }),
  };
}
