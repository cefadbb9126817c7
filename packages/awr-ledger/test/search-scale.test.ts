import {
  appendEvent,
  LedgerStore,
  MIGRATIONS,
  migrateToLatest,
  spendRevision,
} from "@awr/awr-ledger";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { BACKENDS, freshDatabase, type TestDatabase } from "./helpers/backends.js";
import { type OpenProject, openFixtureProject } from "./helpers/projects.js";

const caller = { client: "stdio" };

describe.each(BACKENDS)("search on a busy ledger (%s)", (backend) => {
  let p: OpenProject | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  async function appendNotes(summaries: string[]): Promise<string[]> {
    const ids: string[] = [];
    await p?.ledger.store.write(async (tx) => {
      for (const summary of summaries) {
        const revision = await spendRevision(tx);
        ids.push((await appendEvent(tx, { type: "note.added", revision, summary })).id);
      }
    });
    return ids;
  }

  it("returns the newest matching events, never more than the limit", async () => {
    p = await openFixtureProject("basic", backend);
    const ids = await appendNotes(Array.from({ length: 12 }, (_, i) => `rollout wave ${i}`));
    const hits = await p.ledger.search({ query: "rollout wave", limit: 5 }, caller);
    expect(hits.results).toHaveLength(5);
    expect(hits.results.every((h) => h.kind === "event")).toBe(true);
    expect(new Set(hits.results.map((h) => h.ref))).toEqual(new Set(ids.slice(-5)));
    expect(hits.results[0]?.snippet).toMatch(/\[rollout\]/i);
  });

  it("ranks records and events together, best score first, and every hit matches all terms", async () => {
    p = await openFixtureProject("basic", backend);
    await appendNotes(["hosted page smoke test passed", "unrelated hosted note"]);
    const hits = await p.ledger.search({ query: "hosted page" }, caller);
    const kinds = hits.results.map((h) => h.kind);
    expect(kinds).toContain("event");
    expect(kinds).toContain("work");
    const scores = hits.results.map((h) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(hits.results.filter((h) => h.kind === "event")).toHaveLength(1);
  });
});

describe("the event search migration on SQLite", () => {
  let t: TestDatabase | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("keeps events recorded before it searchable and out of the record index", async () => {
    t = await freshDatabase("sqlite");
    await migrateToLatest(t.db, "sqlite", MIGRATIONS.slice(0, 4));
    await t.db
      .insertInto("project_state")
      .values({
        project_id: "P1",
        name: "p",
        revision: 0,
        manifest_fingerprint: null,
        created_at: "now",
      })
      .execute();
    const store = new LedgerStore(t.db, "sqlite", "P1");
    const before = await store.write(async (tx) =>
      appendEvent(tx, {
        type: "note.added",
        revision: await spendRevision(tx),
        summary: "old webhook retries",
      }),
    );
    await migrateToLatest(t.db, "sqlite");
    const after = await store.write(async (tx) =>
      appendEvent(tx, {
        type: "note.added",
        revision: await spendRevision(tx),
        summary: "new webhook retries",
      }),
    );
    const events = await sql<{ ref: string }>`
      SELECT ref FROM event_search_fts WHERE event_search_fts MATCH 'webhook'
      ORDER BY rowid DESC`.execute(t.db);
    expect(events.rows.map((r) => r.ref)).toEqual([after.id, before.id]);
    const leftover = await sql<{ n: number }>`
      SELECT count(*) AS n FROM search_fts WHERE doc_kind = 'event'`.execute(t.db);
    expect(Number(leftover.rows[0]?.n)).toBe(0);
  });
});
