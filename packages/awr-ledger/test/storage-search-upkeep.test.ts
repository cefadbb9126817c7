// SQLite search upkeep per write (migration 006, docs/design/read-caching.md): an entity's FTS
// row is rewritten only when a column it indexes changes, and the recent-events table ages out
// in batches while staying a suffix of the event log. Search results are what they were.
import { spendRevision } from "@awr/awr-ledger";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { type OpenProject, openFixtureProject } from "./helpers/projects.js";

const caller = { client: "stdio" };
const WINDOW = 25_000;

describe("SQLite search upkeep", () => {
  let p: OpenProject | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  const ftsRowOf = async (ref: string) =>
    (
      await sql<{ id: number }>`SELECT rowid AS id FROM search_fts WHERE ref = ${ref}`.execute(
        p?.ledger.store.db as never,
      )
    ).rows.map((r) => Number(r.id));

  /** An in-place entity update with a revision spent, as a transition's commit makes it. */
  const update = (key: string, set: { status?: string; title?: string }) =>
    p?.ledger.store.write(async (tx) => {
      await spendRevision(tx);
      await tx.updateTable("entities").set(set).where("key", "=", key).execute();
    });

  it("rewrites an entity's search row only when its indexed text changes", async () => {
    p = await openFixtureProject("basic", "sqlite");
    const before = await ftsRowOf("PAY-2");
    expect(before).toHaveLength(1);
    await update("PAY-2", { status: "blocked" });
    expect(await ftsRowOf("PAY-2")).toEqual(before);
    expect((await p.ledger.search({ query: "hosted" }, caller)).results[0]?.ref).toBe("PAY-2");

    await update("PAY-2", { title: "Quokka checkout page" });
    const after = await ftsRowOf("PAY-2");
    expect(after).toHaveLength(1);
    expect(after).not.toEqual(before);
    const hits = await p.ledger.search({ query: "quokka" }, caller);
    expect(hits.results.map((h) => [h.kind, h.ref])).toEqual([["work", "PAY-2"]]);
  });

  it("keeps a suffix of at least the newest window of events in the recent table", async () => {
    p = await openFixtureProject("basic", "sqlite");
    const db = p.ledger.store.db;
    const count = WINDOW + 700;
    await p.ledger.store.write(async (tx) => {
      const revision = await spendRevision(tx);
      const { rows: last } = await sql<{ m: number }>`
        SELECT coalesce(max(seq), 0) AS m FROM events`.execute(tx);
      const base = Number(last[0]?.m);
      await sql`
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
        INSERT INTO events (id, seq, revision, type, work, session, client, operation_id,
                            summary, payload, time)
        SELECT 'e' || i, ${base} + i, ${revision},
               'note.added', NULL, NULL, 'test', NULL, 'wombat sighting ' || i, '{}', 'x'
          FROM n`.execute(tx);
    });
    const { rows } = await sql<{ low: number; high: number; n: number }>`
      SELECT min(rowid) AS low, max(rowid) AS high, count(*) AS n FROM event_search_recent`.execute(
      db,
    );
    const { low, high, n } = rows[0] as { low: number; high: number; n: number };
    const maxSeq = Number(
      (await sql<{ m: number }>`SELECT max(seq) AS m FROM events`.execute(db)).rows[0]?.m,
    );
    expect(Number(high)).toBe(maxSeq);
    expect(Number(n)).toBe(Number(high) - Number(low) + 1);
    expect(Number(n)).toBeGreaterThanOrEqual(WINDOW);
    expect(Number(n)).toBeLessThan(WINDOW + 256);
    const hits = await p.ledger.search({ query: "wombat", limit: 3 }, caller);
    // The newest three (equal scores, so listed by ref).
    expect(hits.results.map((h) => h.snippet).sort()).toEqual([
      `[wombat] sighting ${count - 2}`,
      `[wombat] sighting ${count - 1}`,
      `[wombat] sighting ${count}`,
    ]);
  });
});
