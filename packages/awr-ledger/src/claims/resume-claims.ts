import type { Kysely } from "kysely";
import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type { ClaimTable, SessionTable } from "../core/runtime-tables.js";
import { LedgerError } from "../errors.js";
import { ulid } from "../internal/ulid.js";
import type { CommitUnit } from "../journal/operation-scope.js";
import { findWork } from "../runtime/runtime-lookup.js";
import type { LedgerSchema } from "../storage/schema.js";
import { claimInForce } from "./claim-in-force.js";
import {
  acquireClaim,
  claimConflict,
  claimHolder,
  expireClaim,
  markReleased,
  releaseSessionClaims,
  settleWorkClaim,
} from "./claims.js";

const CLOSED_WORK = ["completed", "cancelled"];

/** How a resume treats claims: its `claim` argument. */
export type ResumeClaimMode = "inherit" | "acquire" | "none";

/**
 * What a successor gets, by mode. `inherit`:
 * - `transfer`: the predecessor still holds claims in force; each is handed over.
 * - `reacquire`: the predecessor's most recent claim on its work was released when the
 *   predecessor ended (ended|interrupted|incomplete, the same revision as its end); it is taken
 *   again for the successor, with the same ttl_ms counted from now.
 * - `none`: nothing to inherit (no claim, a claim released on purpose or by completion, an
 *   expired claim, or work that is now completed/cancelled or gone).
 *
 * `acquire` claims the work anew (taking over the predecessor's claim when it still holds it),
 * refused with ClaimConflict while another session holds it. `none` releases the predecessor's
 * claims and gives the successor none.
 */
export type ClaimInheritance =
  | { kind: "transfer" }
  | { kind: "reacquire"; claim: ClaimTable }
  | { kind: "acquire"; work: string }
  | { kind: "release" }
  | { kind: "none" };

/**
 * Read-only, so it can run in the precheck: decides the inheritance and refuses with
 * ClaimConflict (naming the holder, changing nothing) when another session holds the work that
 * would be re-acquired.
 */
export async function planClaimInheritance(
  db: Kysely<LedgerSchema>,
  predecessor: SessionTable,
  mode: ResumeClaimMode,
  nowMs: number,
): Promise<ClaimInheritance> {
  const held = await db
    .selectFrom("claims")
    .selectAll()
    .where("session", "=", predecessor.id)
    .where("status", "=", "active")
    .execute();
  const holds = held.some((claim) => claimInForce(claim, nowMs));
  if (mode === "none") return { kind: "release" };
  if (mode === "acquire") {
    if (predecessor.work === null) {
      throw new LedgerError("InvalidInput", `session ${predecessor.id} has no work to claim`, {
        session: predecessor.id,
      });
    }
    const item = await findWork(db, predecessor.work);
    if (item === undefined || CLOSED_WORK.includes(item.status)) {
      throw new LedgerError(
        "InvalidTransition",
        `work ${predecessor.work} is ${item?.status ?? "gone"}; it cannot be claimed`,
        { work: predecessor.work, status: item?.status ?? null },
      );
    }
    const holder = await claimHolder(db, item.key, nowMs, predecessor.branch);
    if (holder !== undefined && holder.session !== predecessor.id) {
      throw claimConflict(item.key, holder);
    }
    return holds ? { kind: "transfer" } : { kind: "acquire", work: item.key };
  }
  if (holds) return { kind: "transfer" };
  if (predecessor.work === null || predecessor.end_revision === null) return { kind: "none" };
  const last = await db
    .selectFrom("claims")
    .selectAll()
    .where("session", "=", predecessor.id)
    .where("work", "=", predecessor.work)
    .orderBy("acquired_revision", "desc")
    .orderBy("id", "desc")
    .executeTakeFirst();
  const releasedByEnd =
    last !== undefined &&
    last.status === "released" &&
    Number(last.ended_revision) === Number(predecessor.end_revision);
  if (!releasedByEnd) return { kind: "none" };
  const item = await findWork(db, last.work);
  if (item === undefined || CLOSED_WORK.includes(item.status)) return { kind: "none" };
  const holder = await claimHolder(db, last.work, nowMs, last.branch);
  if (holder !== undefined) throw claimConflict(last.work, holder);
  return { kind: "reacquire", claim: last };
}

/**
 * Carries out the inheritance inside the resume's domain commit and returns the successor's
 * new claims. Claims that lapsed are marked `expired` and not inherited.
 */
export async function inheritClaims(
  unit: CommitUnit,
  predecessor: SessionTable,
  successor: SessionTable,
  plan: ClaimInheritance,
  options: { ttlMs?: number | undefined } = {},
): Promise<ClaimTable[]> {
  if (plan.kind === "reacquire") return [await reacquire(unit, successor, plan.claim)];
  if (plan.kind === "release") {
    await releaseSessionClaims(unit, predecessor.id, "resumed without a claim");
    return [];
  }
  if (plan.kind === "acquire") {
    const { claim, expired } = await acquireClaim(unit, successor, plan.work, options.ttlMs);
    await unit.event({
      type: DOMAIN_EVENT_TYPES.workClaimed,
      work: plan.work,
      session: successor.id,
      summary: `session ${successor.id} claimed ${plan.work} on resume`,
      payload: { claim: claim.id, ttl_ms: options.ttlMs ?? null, expired_claim_ids: expired },
    });
    return [claim];
  }
  const active = await unit.tx
    .selectFrom("claims")
    .selectAll()
    .where("session", "=", predecessor.id)
    .where("status", "=", "active")
    .orderBy("acquired_revision")
    .execute();
  for (const lapsed of active.filter((c) => !claimInForce(c, unit.nowMs))) {
    await expireClaim(unit, lapsed);
  }
  const inherited: ClaimTable[] = [];
  for (const old of active.filter((c) => claimInForce(c, unit.nowMs))) {
    await markReleased(unit, old);
    await unit.event({
      type: DOMAIN_EVENT_TYPES.claimReleased,
      work: old.work,
      session: predecessor.id,
      summary: `claim on ${old.work} handed to successor ${successor.id}`,
      payload: { claim: old.id, reason: "resumed", successor: successor.id },
    });
    const claim: ClaimTable = {
      ...old,
      id: ulid(),
      session: successor.id,
      status: "active",
      acquired_revision: unit.revision,
      ended_revision: null,
      acquired_at: unit.time,
      ended_at: null,
    };
    await unit.tx.insertInto("claims").values(claim).execute();
    inherited.push(claim);
    await unit.event({
      type: DOMAIN_EVENT_TYPES.workClaimed,
      work: claim.work,
      session: successor.id,
      summary: `session ${successor.id} inherited the claim on ${claim.work}`,
      payload: { claim: claim.id, inherited_from: old.id },
    });
  }
  return inherited;
}

async function reacquire(
  unit: CommitUnit,
  successor: SessionTable,
  released: ClaimTable,
): Promise<ClaimTable> {
  // The precheck ran under the same lock; this only marks a lapsed holder expired (and guards).
  const { holder } = await settleWorkClaim(unit, released.work, released.branch);
  if (holder !== undefined) throw claimConflict(released.work, holder);
  const ttlMs = released.ttl_ms === null ? null : Number(released.ttl_ms);
  const claim: ClaimTable = {
    id: ulid(),
    branch: released.branch,
    work: released.work,
    session: successor.id,
    client: successor.client,
    status: "active",
    ttl_ms: ttlMs,
    expires_at: ttlMs === null ? null : unit.nowMs + ttlMs,
    acquired_revision: unit.revision,
    ended_revision: null,
    acquired_at: unit.time,
    ended_at: null,
  };
  await unit.tx.insertInto("claims").values(claim).execute();
  await unit.event({
    type: DOMAIN_EVENT_TYPES.workClaimed,
    work: claim.work,
    session: successor.id,
    summary: `session ${successor.id} took back the claim on ${claim.work} released when its predecessor ended`,
    payload: { claim: claim.id, inherited_from: released.id, reacquired: true },
  });
  return claim;
}
