import type { Kysely } from "kysely";
import type { LedgerSchema } from "../storage/schema.js";

/**
 * Session ids are each client's own (docs/design/conversation-privacy.md, "Session ids"): a
 * client lists, resumes and acts on its own sessions only, so another client's session id never
 * reaches it either. Answers name sessions in fields (`active_claims[].session_id`, an event's
 * `session_id`) and in text written by the ledger ("session 01M… claimed SHOP-010", "claimed by
 * session 01M…"); both are found here by the id's shape and replaced with one marker, so the
 * answer keeps its shape (the claim, the event, the sentence) and loses only the id.
 *
 * The ids are ULIDs: 26 Crockford base-32 characters as one token. A candidate is another
 * client's session only when the sessions table says so, so event, claim and checkpoint ids,
 * and the caller's own sessions, pass unchanged.
 */
export const OTHER_CLIENT_SESSION = "[another client's session]";

const ULID_TOKEN = /(?<![0-9A-Za-z])[0-9A-HJKMNP-TV-Z]{26}(?![0-9A-Za-z])/g;

/** Candidate ids per lookup: well under every backend's bound on bound parameters. */
const LOOKUP_CHUNK = 500;

/** Every ULID-shaped token in the strings of `value` (iterative: any depth). */
function candidateIds(value: unknown): Set<string> {
  const found = new Set<string>();
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (typeof next === "string") {
      for (const match of next.matchAll(ULID_TOKEN)) found.add(match[0]);
    } else if (next !== null && typeof next === "object") {
      for (const child of Object.values(next)) stack.push(child);
    }
  }
  return found;
}

/** Which of `ids` are sessions of a client other than `client`. */
async function otherClientsSessions(
  db: Kysely<LedgerSchema>,
  client: string,
  ids: ReadonlySet<string>,
): Promise<Set<string>> {
  const all = [...ids];
  const foreign = new Set<string>();
  for (let at = 0; at < all.length; at += LOOKUP_CHUNK) {
    const rows = await db
      .selectFrom("sessions")
      .select("id")
      .where("id", "in", all.slice(at, at + LOOKUP_CHUNK))
      .where("client", "!=", client)
      .execute();
    for (const row of rows) foreign.add(row.id);
  }
  return foreign;
}

function replaced<T>(value: T, foreign: ReadonlySet<string>): T {
  if (typeof value === "string") {
    return value.replace(ULID_TOKEN, (id) => (foreign.has(id) ? OTHER_CLIENT_SESSION : id)) as T;
  }
  if (Array.isArray(value)) return value.map((item) => replaced(item, foreign)) as T;
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    Object.defineProperty(out, key, {
      value: replaced(child, foreign),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out as T;
}

/**
 * `value` as `client` may see it: every session id of another client replaced with
 * OTHER_CLIENT_SESSION. `value` is never changed (a memoised read stays as it was); a copy is
 * made only when there is something to replace. Costs one indexed lookup when the value holds a
 * ULID-shaped token, none otherwise.
 */
export async function withoutOtherClientsSessions<T>(
  db: Kysely<LedgerSchema>,
  client: string,
  value: T,
): Promise<T> {
  const candidates = candidateIds(value);
  if (candidates.size === 0) return value;
  const foreign = await otherClientsSessions(db, client, candidates);
  return foreign.size === 0 ? value : replaced(value, foreign);
}
