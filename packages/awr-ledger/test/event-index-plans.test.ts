// Migration 013 keeps events without a session, or on main, out of the (session, seq) and
// (branch, seq) indexes. The reads of events must still find an index: those that name a session
// or a branch use the partial ones, main's and the project's events use (work, seq) or seq order.
// A full scan of the events table, at a million events, would be a regression of every such read.
// SQLite's plans are checked (EXPLAIN QUERY PLAN); PostgreSQL plans by statistics instead.
import { appendEvent, migrateToLatest } from "@awr/awr-ledger/testing";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "./helpers/backends.js";

/** The event reads by selector, as the ledger writes them (context, history, branch, session). */
const READS: Record<string, { query: string; index: RegExp }> = {
  "project events (context)": {
    query:
      "SELECT * FROM events WHERE work IS NULL AND revision > ? AND branch IS NULL ORDER BY seq DESC LIMIT 20",
    index: /USING INDEX events_work_seq/,
  },
  "a work item's events on main (context)": {
    query:
      "SELECT * FROM events WHERE work = ? AND revision > ? AND branch IS NULL ORDER BY seq DESC LIMIT 20",
    index: /USING INDEX events_work_seq/,
  },
  "main's history": {
    query:
      "SELECT * FROM events WHERE seq > ? AND revision > ? AND branch IS NULL ORDER BY seq LIMIT 51",
    index: /USING (INDEX sqlite_autoindex_events_2|INTEGER PRIMARY KEY) \(seq>\?\)/,
  },
  "a branch's history": {
    query:
      "SELECT * FROM events WHERE seq > ? AND revision > ? AND branch = ? ORDER BY seq LIMIT 51",
    index: /USING INDEX events_branch_seq/,
  },
  "a branch's events of a type": {
    query: "SELECT * FROM events WHERE branch = ? AND type = ? ORDER BY seq DESC",
    index: /USING INDEX events_branch_seq/,
  },
  "a session's history": {
    query:
      "SELECT * FROM events WHERE seq > ? AND revision > ? AND session = ? ORDER BY seq LIMIT 51",
    index: /USING INDEX events_session_seq/,
  },
  "a session's events of a type": {
    query: "SELECT * FROM events WHERE type = ? AND session = ? ORDER BY seq DESC",
    index: /USING INDEX events_session_seq/,
  },
};

describe("event reads on SQLite, after the partial session and branch indexes", () => {
  let t: TestDatabase | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it.each(Object.entries(READS))("%s use an index", async (_, { query, index }) => {
    t = await freshDatabase("sqlite");
    await migrateToLatest(t.db, t.dialect);
    const { rows } = await sql<{ detail: string }>`EXPLAIN QUERY PLAN ${sql.raw(
      query.replaceAll("?", "'x'"),
    )}`.execute(t.db);
    const plan = rows.map((r) => r.detail).join("; ");
    expect(plan).toMatch(index);
    expect(plan).not.toMatch(/SCAN events(?! USING)/);
  });

  it("keeps an event without a session or a branch out of those two indexes", async () => {
    t = await freshDatabase("sqlite");
    await migrateToLatest(t.db, t.dialect);
    await appendEvent(t.db, { type: "note.main", revision: 1 });
    await appendEvent(t.db, { type: "note.session", revision: 1, session: "S1" });
    await appendEvent(t.db, { type: "note.branch", revision: 1, branch: "B1" });
    // dbstat counts the entries (cells) each index's pages hold.
    const { rows } = await sql<{ name: string; entries: number }>`
      SELECT name, sum(ncell) AS entries FROM dbstat
       WHERE name IN ('events_session_seq', 'events_branch_seq', 'events_work_seq')
       GROUP BY name ORDER BY name`.execute(t.db);
    expect(rows.map((r) => [r.name, Number(r.entries)])).toEqual([
      ["events_branch_seq", 1],
      ["events_session_seq", 1],
      ["events_work_seq", 3],
    ]);
  });
});
