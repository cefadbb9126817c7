import type { Kysely } from "kysely";
import { type ClaimView, claimView } from "../claims/claim-view.js";
import type { BranchTable } from "../core/runtime-tables.js";
import { type BranchView, branchView } from "../runtime/branch-view.js";
import { type SessionView, sessionView } from "../runtime/runtime-views.js";
import type { LedgerSchema } from "../storage/schema.js";

/** An open loop of the latest checkpoint of a branch session, which a close must dispose of. */
export interface BranchOpenLoop {
  checkpoint_id: string;
  checkpoint_revision: number;
  session_id: string;
  /** The work key (ours have no separate id). */
  work_item_id: string | null;
  index: number;
  text: string;
}

export interface BranchClosePlan {
  project_id: string;
  project_revision: number;
  current_branch_id: string | null;
  branch: BranchView;
  sessions: SessionView[];
  unsettled_claims: ClaimView[];
  open_loops: BranchOpenLoop[];
  /** Always empty: checkpoints are saved in one transaction here. */
  pending_checkpoint_attempts: string[];
  /** Always empty: we have no mutation proposals. */
  pending_proposals: string[];
  blockers: string[];
  history_scope: string;
}

/**
 * What must be settled before `branch` can close: no active session and no active-status claim
 * (lapsed ones included, until a release, an end or `doctor repair expire-claim` settles them),
 * and a disposition for every open loop of each branch session's latest checkpoint.
 */
export async function branchClosePlan(
  db: Kysely<LedgerSchema>,
  branch: BranchTable,
  projectId: string,
  revision: number,
  current: string | null,
): Promise<BranchClosePlan> {
  const sessions = await db
    .selectFrom("sessions")
    .selectAll()
    .where("branch", "=", branch.id)
    .orderBy("start_revision")
    .orderBy("id")
    .execute();
  const claims = await db
    .selectFrom("claims")
    .selectAll()
    .where("branch", "=", branch.id)
    .where("status", "=", "active")
    .orderBy("acquired_revision")
    .execute();
  const open_loops: BranchOpenLoop[] = [];
  for (const session of sessions) {
    if (session.last_checkpoint === null) continue;
    const checkpoint = await db
      .selectFrom("checkpoints")
      .selectAll()
      .where("id", "=", session.last_checkpoint)
      .executeTakeFirst();
    if (checkpoint === undefined) continue;
    (JSON.parse(checkpoint.open_loops) as string[]).forEach((text, index) => {
      open_loops.push({
        checkpoint_id: checkpoint.id,
        checkpoint_revision: Number(checkpoint.revision),
        session_id: session.id,
        work_item_id: session.work,
        index,
        text,
      });
    });
  }
  const active = sessions.filter((s) => s.status === "active");
  const blockers = [
    ...active.map((s) => `active session ${s.id} on ${s.work ?? "no work"}: end or interrupt it`),
    ...claims.map(
      (c) =>
        `active claim ${c.id} on ${c.work}: release it, end its session or run awr doctor repair expire-claim`,
    ),
  ];
  return {
    project_id: projectId,
    project_revision: revision,
    current_branch_id: current,
    branch: branchView(branch, projectId),
    sessions: sessions.map((s) => sessionView(s, projectId)),
    unsettled_claims: claims.map((c) => claimView(c)),
    open_loops,
    pending_checkpoint_attempts: [],
    pending_proposals: [],
    blockers,
    history_scope: "exact_branch",
  };
}
