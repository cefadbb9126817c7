import type { ClaimTable } from "../core/runtime-tables.js";
import { claimStatusAt } from "./claim-in-force.js";

/** A claim as tools return it (numbers normalised, times in ms). */
export interface ClaimView {
  id: string;
  work: string;
  session_id: string;
  /** active | released | expired; an active claim past its expiry is shown as expired. */
  status: string;
  ttl_ms: number | null;
  /** Milliseconds since the epoch after which the claim lapses, or null without a ttl. */
  expires_at: number | null;
  acquired_revision: number;
  ended_revision: number | null;
  /** Its session's branch (null = main). */
  branch_id: string | null;
}

/** `nowMs` given: an active claim whose expiry has passed is shown as `expired`. */
export function claimView(row: ClaimTable, nowMs?: number): ClaimView {
  return {
    id: row.id,
    work: row.work,
    session_id: row.session,
    status: nowMs === undefined ? row.status : claimStatusAt(row, nowMs),
    ttl_ms: row.ttl_ms === null ? null : Number(row.ttl_ms),
    expires_at: row.expires_at === null ? null : Number(row.expires_at),
    acquired_revision: Number(row.acquired_revision),
    ended_revision: row.ended_revision === null ? null : Number(row.ended_revision),
    branch_id: row.branch ?? null,
  };
}
