import { LIMITS } from "../core/limits.js";
import { LedgerError } from "../errors.js";
import type { PreparedSession, PreparedWork } from "./work-prepare.js";

/**
 * The action view's one instruction: in which situation it applies (`when`), which facts of the
 * answer it rests on (`basis`), what to do (`next_action`) and what would make it out of date
 * (`recheck`). Its JSON is at most LIMITS.actionGuidanceBytes.
 */
export interface ActionGuidance {
  when: string;
  basis: string;
  next_action: string;
  recheck: string;
}

const card = (
  when: string,
  basis: string,
  next_action: string,
  recheck: string,
): ActionGuidance => ({ when, basis, next_action, recheck });

/** The guidance card's size as JSON, in UTF-8 bytes. */
export function guidanceBytes(guidance: ActionGuidance): number {
  return new TextEncoder().encode(JSON.stringify(guidance)).length;
}

/** Statuses of work still under way (not terminal, not blocked). */
const ONGOING = new Set(["planned", "ready", "in_progress", "claimed"]);
/** The diagnostics an item the session itself holds always has: it is claimed, so not ready. */
const OWN_CLAIM_CODES = new Set(["status_not_ready", "active_claim"]);

/**
 * Whether the only reason the item is not ready is that the given session holds it: then the
 * session continues its own work, which is no blocker.
 */
function continuesOwnWork(prepared: PreparedWork, session: PreparedSession | null): boolean {
  if (session === null) return false;
  const claims = prepared.active_claims;
  return (
    claims.length > 0 &&
    claims.every((c) => c.session_id === session.id) &&
    ONGOING.has(prepared.work.status) &&
    prepared.diagnostics.every((d) => OWN_CLAIM_CODES.has(d.code))
  );
}

/**
 * The guidance for a prepared work item, the most pressing condition first: the session is no
 * longer active, or waits on the user; the context has required gaps; the item has a blocker
 * the session does not own; the session's latest compaction left it a handoff candidate (its
 * own card, from awr_compaction_get); otherwise the packet is ready to use.
 */
export function actionGuidance(
  prepared: PreparedWork,
  session: PreparedSession | null,
): ActionGuidance {
  const guidance =
    session !== null && session.status !== "active"
      ? card(
          "The given session is not active any more",
          "the session's current status",
          "Read its last checkpoint and any successor, then continue through awr_session_resume",
          "A resumed session has read fresh required context",
        )
      : prepared.continuity.state === "waiting_user"
        ? card(
            "The session has a question open to the user",
            "continuity.waits in this answer",
            "Wait for the user's reply and record it with awr_session_reply; do not ask again",
            "The open wait is answered or cancelled",
          )
        : !prepared.context.completeness.complete
          ? card(
              "The required context has gaps",
              "context.completeness.issues and the freshness of its sources",
              "Fix the gaps listed for this work item, then prepare it again",
              "A required source, rule or the work contract changes",
            )
          : !prepared.ready && !continuesOwnWork(prepared, session)
            ? card(
                "The work item is not ready to start",
                "diagnostics and active_claims in this answer",
                "Clear this item's own blockers or the claim in the way; leave unrelated items alone",
                "A source, a dependency or a claim of this item changes",
              )
            : session?.compaction?.state === "handoff_candidate"
              ? session.compaction.guidance
              : card(
                  "The required context is complete and nothing more pressing is open",
                  "the work item, its claims and context in this answer",
                  "Read the rendered context, then follow the item's next_action under the usual session and claim rules",
                  "The scope changes, a wait opens, a result is uncertain, or the work is handed off",
                );
  if (guidanceBytes(guidance) > LIMITS.actionGuidanceBytes) {
    throw new LedgerError(
      "InvalidInput",
      `the action guidance exceeds its bound of ${LIMITS.actionGuidanceBytes} bytes`,
    );
  }
  return guidance;
}
