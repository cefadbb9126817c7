import {
  appendEvent,
  LedgerStore,
  ledgerStore,
  MIGRATIONS,
  migrateToLatest,
  spendRevision,
} from "@awr/awr-ledger/testing";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import {
  BACKENDS,
  freshDatabase,
  insertProjectRow,
  type TestDatabase,
} from "./helpers/backends.js";
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
    await ledgerStore((p as OpenProject).ledger).write(async (tx) => {
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
    const hits = await p.ledger.call("awr_search", { text: "rollout wave", limit: 5 }, caller);
    expect(hits.hits).toHaveLength(5);
    expect(hits.hits.every((h) => h.kind === "event")).toBe(true);
    expect(new Set(hits.hits.map((h) => h.external_key))).toEqual(new Set(ids.slice(-5)));
    expect(hits.hits[0]?.snippet).toMatch(/\[rollout\]/i);
  });

  it("sees an event recorded after an identical search, and hands out independent hits", async () => {
    p = await openFixtureProject("basic", backend);
    const [first] = await appendNotes(["canary release one"]);
    const before = await p.ledger.call("awr_search", { text: "canary" }, caller);
    expect(before.hits.map((h) => h.external_key)).toEqual([first]);
    const hit = before.hits[0];
    if (hit !== undefined) hit.title = "changed by a caller";
    const again = await p.ledger.call("awr_search", { text: "canary" }, caller);
    expect(again.hits[0]?.title).toBe("note.added");
    const [second] = await appendNotes(["canary release two"]);
    const after = await p.ledger.call("awr_search", { text: "canary" }, caller);
    expect(after.hits.map((h) => h.external_key).sort()).toEqual([first, second].sort());
    expect(after.project_revision).toBeGreaterThan(before.project_revision);
  });

  it("ranks records and events together, best score first, and every hit matches all terms", async () => {
    p = await openFixtureProject("basic", backend);
    await appendNotes(["hosted page smoke test passed", "unrelated hosted note"]);
    const hits = await p.ledger.call("awr_search", { text: "hosted page" }, caller);
    const kinds = hits.hits.map((h) => h.kind);
    expect(kinds).toContain("event");
    expect(kinds).toContain("work_item");
    const ranks = hits.hits.map((h) => h.rank);
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    expect(hits.hits.filter((h) => h.kind === "event")).toHaveLength(1);
  });
});

describe("the event search migration on SQLite", () => {
  let t: TestDatabase | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("keeps events and records indexed before it searchable, each in its own index", async () => {
    t = await freshDatabase("sqlite");
    await migrateToLatest(t.db, t.dialect, MIGRATIONS.slice(0, 4));
    await insertProjectRow(t, { project_id: "P1", name: "p", created_at: "now" });
    const entity = (key: string, title: string) => ({
      id: key,
      kind: "work",
      key,
      title,
      status: "ready",
      raw_status: null,
      summary: null,
      body: "",
      attributes: "{}",
      source_path: "work.md",
      line_start: 1,
      line_end: 1,
      ordinal: 0,
      indexed_revision: 0,
    });
    await t.db.insertInto("entities").values(entity("W-1", "Webhook retries")).execute();
    const store = new LedgerStore(t.db, t.dialect, "P1");
    const before = await store.write(async (tx) =>
      appendEvent(tx, {
        type: "note.added",
        revision: await spendRevision(tx),
        summary: "old webhook retries",
      }),
    );
    await migrateToLatest(t.db, t.dialect);
    const after = await store.write(async (tx) =>
      appendEvent(tx, {
        type: "note.added",
        revision: await spendRevision(tx),
        summary: "new webhook retries",
      }),
    );
    const events = await sql<{ ref: string }>`
      SELECT id AS ref FROM event_search_fts WHERE event_search_fts MATCH 'webhook'
      ORDER BY rowid DESC`.execute(t.db);
    expect(events.rows.map((r) => r.ref)).toEqual([after.id, before.id]);
    await t.db.insertInto("entities").values(entity("W-2", "Webhook signing")).execute();
    const records = await sql<{ ref: string }>`
      SELECT ref FROM search_fts WHERE search_fts MATCH 'webhook' ORDER BY ref`.execute(t.db);
    expect(records.rows.map((r) => r.ref)).toEqual(["W-1", "W-2"]);
    const leftover = await sql<{ n: number }>`
      SELECT count(*) AS n FROM search_fts WHERE doc_kind = 'event'`.execute(t.db);
    expect(Number(leftover.rows[0]?.n)).toBe(0);
  });

  it("still finds an event older than the recent-events window when the page has room", async () => {
    const p = await openFixtureProject("basic", "sqlite");
    try {
      const old = await ledgerStore(p.ledger).write(async (tx) =>
        appendEvent(tx, {
          type: "note.added",
          revision: await spendRevision(tx),
          summary: "archived quokka migration",
        }),
      );
      // As if newer events had pushed it out of the window.
      await sql`DELETE FROM event_search_recent WHERE id = ${old.id}`.execute(p.db.db);
      const hits = await p.ledger.call("awr_search", { text: "quokka" }, caller);
      expect(hits.hits.map((h) => [h.kind, h.external_key])).toEqual([["event", old.id]]);
    } finally {
      await p.close();
    }
  });
});
