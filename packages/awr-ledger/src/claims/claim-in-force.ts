import type { RawBuilder, SqlBool } from "kysely";
import { sql } from "../internal/kysely.js";

/**
 * The one rule for "is this claim in force?": its status is `active` and its `expires_at` is
 * null (no ttl) or after now. A claim whose expiry equals now has lapsed. An `active` claim past
 * its expiry has lapsed but stays `active` in the table until a write touches it (and marks it
 * `expired`, with a `claim.expired` event); every reader and writer asks the rule here, in
 * memory (`claimInForce`, `claimLapsed`) or in SQL (`claimInForceSql`, `claimLapsedSql`), so
 * both always agree.
 */

/**
 * The columns the rule reads; `expires_at` is milliseconds since the epoch (a driver may hand a
 * BIGINT over as text).
 */
export interface ClaimDeadline {
  status: string;
  expires_at: number | string | null;
}

/** A claim is in force while active and not past its expiry. */
export function claimInForce(claim: ClaimDeadline, nowMs: number): boolean {
  return (
    claim.status === "active" && (claim.expires_at === null || Number(claim.expires_at) > nowMs)
  );
}

/** An active claim that is no longer in force: it has an expiry, and that is now or earlier. */
export function claimLapsed(claim: ClaimDeadline, nowMs: number): boolean {
  return claim.status === "active" && !claimInForce(claim, nowMs);
}

/** The status a claim is shown with: a lapsed active claim shows as `expired`. */
export function claimStatusAt(claim: ClaimDeadline, nowMs: number): string {
  return claimLapsed(claim, nowMs) ? "expired" : claim.status;
}

const ACTIVE = sql.lit("active");
const column = (alias: string | undefined, name: string) =>
  sql.ref(alias === undefined ? name : `${alias}.${name}`);

/**
 * SQL condition: the claim is in force at `nowMs` (`claimInForce`). The columns are those of
 * `claims`, under `alias` when one is given.
 */
export function claimInForceSql(nowMs: number, alias?: string): RawBuilder<SqlBool> {
  const expiresAt = column(alias, "expires_at");
  return sql<SqlBool>`(${column(alias, "status")} = ${ACTIVE} AND (${expiresAt} IS NULL OR ${expiresAt} > ${nowMs}))`;
}

/**
 * SQL condition: the claim is active but lapsed at `nowMs` (`claimLapsed`); a null expiry never
 * compares, so a claim without a ttl never matches. Columns as in `claimInForceSql`.
 */
export function claimLapsedSql(nowMs: number, alias?: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${column(alias, "status")} = ${ACTIVE} AND ${column(alias, "expires_at")} <= ${nowMs})`;
}
