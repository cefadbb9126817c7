import type { Kysely } from "kysely";
import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type { ClaimTable, SessionTable } from "../core/runtime-tables.js";
import { LedgerError } from "../errors.js";
import { ulid } from "../internal/ulid.js";
import type { CommitUnit } from "../journal/operation-scope.js";
import type { LedgerSchema } from "../storage/schema.js";
import { claimInForce } from "./claim-in-force.js";

/** The active claim row of `work` on `branch` (null = main): at most one (claims_one_active). */
function activeClaimRow(db: Kysely<LedgerSchema>, work: string, branch: string | null) {
  return db
    .selectFrom("claims")
    .selectAll()
    .where("work", "=", work)
    .where("status", "=", "active")
    .where((eb) => (branch === null ? eb("branch", "is", null) : eb("branch", "=", branch)))
    .executeTakeFirst();
}

/**
 * The claim in force on `work` within `branch` (null = main), after marking an outdated active
 * claim there `expired` (with a `claim.expired` event): "expired claims are marked when next
 * touched". Claims on other branches are never read or touched.
 */
export async function settleWorkClaim(
  unit: CommitUnit,
  work: string,
  branch: string | null,
): Promise<{ holder: ClaimTable | undefined; expired: string[] }> {
  const active = await activeClaimRow(unit.tx, work, branch);
  if (active === undefined) return { holder: undefined, expired: [] };
  if (claimInForce(active, unit.nowMs)) return { holder: active, expired: [] };
  await expireClaim(unit, active);
  return { holder: undefined, expired: [active.id] };
}

/** Marks an outdated active claim `expired`, with its `claim.expired` event. */
export async function expireClaim(unit: CommitUnit, claim: ClaimTable): Promise<void> {
  await unit.tx
    .updateTable("claims")
    .set({ status: "expired", ended_revision: unit.revision, ended_at: unit.time })
    .where("id", "=", claim.id)
    .execute();
  await unit.event({
    type: DOMAIN_EVENT_TYPES.claimExpired,
    work: claim.work,
    session: claim.session,
    summary: `claim on ${claim.work} by session ${claim.session} expired`,
    payload: { claim: claim.id, expires_at: new Date(Number(claim.expires_at)).toISOString() },
  });
}

export function claimConflict(work: string, holder: ClaimTable): LedgerError {
  return new LedgerError(
    "ClaimConflict",
    `work ${work} is claimed by session ${holder.session}; wait for that claim to be released ` +
      "or to expire",
    { work, holder: { session: holder.session, claim: holder.id } },
  );
}

/**
 * Takes (or renews, for its holder) the claim on `work` for `session`, on the session's branch.
 * Does not emit the `work.claimed` event: the caller emits it, terminal or not, with
 * `expired_claim_ids` (the lapsed claims this acquisition marked expired).
 */
export async function acquireClaim(
  unit: CommitUnit,
  session: SessionTable,
  work: string,
  ttlMs: number | undefined,
): Promise<{ claim: ClaimTable; renewed: boolean; expired: string[] }> {
  const { holder, expired } = await settleWorkClaim(unit, work, session.branch);
  const expiresAt = ttlMs === undefined ? null : unit.nowMs + ttlMs;
  if (holder !== undefined && holder.session !== session.id) throw claimConflict(work, holder);
  if (holder !== undefined) {
    await unit.tx
      .updateTable("claims")
      .set({ ttl_ms: ttlMs ?? null, expires_at: expiresAt })
      .where("id", "=", holder.id)
      .execute();
    return {
      claim: { ...holder, ttl_ms: ttlMs ?? null, expires_at: expiresAt },
      renewed: true,
      expired,
    };
  }
  const claim: ClaimTable = {
    id: ulid(),
    branch: session.branch,
    work,
    session: session.id,
    client: session.client,
    status: "active",
    ttl_ms: ttlMs ?? null,
    expires_at: expiresAt,
    acquired_revision: unit.revision,
    ended_revision: null,
    acquired_at: unit.time,
    ended_at: null,
  };
  await unit.tx.insertInto("claims").values(claim).execute();
  return { claim, renewed: false, expired };
}

/** Ends a claim as `released`; the caller emits (or not) the `claim.released` event. */
export async function markReleased(unit: CommitUnit, claim: ClaimTable): Promise<ClaimTable> {
  await unit.tx
    .updateTable("claims")
    .set({ status: "released", ended_revision: unit.revision, ended_at: unit.time })
    .where("id", "=", claim.id)
    .execute();
  return { ...claim, status: "released", ended_revision: unit.revision, ended_at: unit.time };
}

/**
 * Ends every active claim of a session: outdated ones as `expired`, the rest as `released`
 * with a `claim.released` event each. Returns the released claims.
 */
export async function releaseSessionClaims(
  unit: CommitUnit,
  session: string,
  reason: string,
): Promise<ClaimTable[]> {
  const active = await unit.tx
    .selectFrom("claims")
    .selectAll()
    .where("session", "=", session)
    .where("status", "=", "active")
    .orderBy("acquired_revision")
    .execute();
  const released: ClaimTable[] = [];
  for (const claim of active) {
    if (!claimInForce(claim, unit.nowMs)) {
      await expireClaim(unit, claim);
      continue;
    }
    released.push(await markReleased(unit, claim));
    await unit.event({
      type: DOMAIN_EVENT_TYPES.claimReleased,
      work: claim.work,
      session,
      summary: `claim on ${claim.work} released (${reason})`,
      payload: { claim: claim.id, reason },
    });
  }
  return released;
}

/**
 * Read-only: the claim in force on `work` within `branch` (null = main; an outdated active
 * claim counts as none).
 */
export async function claimHolder(
  db: Kysely<LedgerSchema>,
  work: string,
  nowMs: number,
  branch: string | null,
): Promise<ClaimTable | undefined> {
  const active = await activeClaimRow(db, work, branch);
  return active !== undefined && claimInForce(active, nowMs) ? active : undefined;
}
