import type { Migration } from "../migration.js";

// An event without a session, or on main (branch NULL), is never looked up through the (session,
// seq) or (branch, seq) index: reads ask for `session = ?` and `branch = ?`, and main's events
// (`branch IS NULL`) are read through (work, seq) or in seq order. So those rows leave the two
// indexes, and with them every journal receipt (no session, no branch: two of a journaled
// write's three events) and every event of main: about one index page less in each of a journaled
// write's commits. Reads that name a session or a branch still use the indexes, on both
// databases (`x = ?` implies `x IS NOT NULL`).
const statements = [
  "DROP INDEX events_session_seq",
  "CREATE INDEX events_session_seq ON events (session, seq) WHERE session IS NOT NULL",
  "DROP INDEX events_branch_seq",
  "CREATE INDEX events_branch_seq ON events (branch, seq) WHERE branch IS NOT NULL",
];

export const migration013PartialEventIndexes: Migration = {
  version: 13,
  name: "events leave the session and branch indexes when they have neither",
  statements: { sqlite: statements, postgres: statements },
};
