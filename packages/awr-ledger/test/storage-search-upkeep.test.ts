// Search upkeep per write (migrations 006 and 009, docs/design/read-caching.md): an entity's
// search rows follow every change to what they index (title, summary, body, next action, in any
// language) and nothing else, on both backends; on SQLite its FTS rows are rewritten only when
// that text changes, and the recent-events table ages out in batches while staying a suffix of
// the event log. Events are searched in the newest EVENT_SEARCH_WINDOW first, and in the whole
// log whenever the page has room (the ledger README's "Search").

import { openLedger } from "@awr/awr-ledger";
import { EVENT_SEARCH_WINDOW, ledgerStore, spendRevision } from "@awr/awr-ledger/testing";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { BACKENDS, reopenDatabase } from "./helpers/backends.js";
import { type OpenProject, openFixtureProject } from "./helpers/projects.js";

const caller = { client: "stdio" };
const WINDOW = EVENT_SEARCH_WINDOW;

/** An in-place entity update with a revision spent, as a transition's commit makes it. */
function updater(p: OpenProject) {
  return (key: string, set: { status?: string; title?: string; attributes?: string }) =>
    ledgerStore(p.ledger).write(async (tx) => {
      await spendRevision(tx);
      await tx.updateTable("entities").set(set).where("key", "=", key).execute();
    });
}

/** `count` events appended directly (a revision spent once), `summary(i)` for the i-th, 1-based. */
async function appendEvents(p: OpenProject, count: number, summary: (i: number) => string) {
  await ledgerStore(p.ledger).write(async (tx) => {
    const revision = await spendRevision(tx);
    const last = await tx
      .selectFrom("events")
      .select((eb) => eb.fn.max("seq").as("m"))
      .executeTakeFirst();
    const base = Number(last?.m ?? 0);
    for (let from = 1; from <= count; from += 500) {
      const rows = Array.from({ length: Math.min(500, count - from + 1) }, (_, k) => {
        const i = from + k;
        return {
          id: `e${String(base + i).padStart(8, "0")}`,
          seq: base + i,
          revision,
          type: "note.added",
          work: null,
          session: null,
          client: "test",
          operation_id: null,
          summary: summary(i),
          payload: "{}",
          time: "x",
          importance: "normal",
        };
      });
      await tx.insertInto("events").values(rows).execute();
    }
  });
}

async function attributesOf(p: OpenProject, key: string): Promise<Record<string, unknown>> {
  const row = await ledgerStore(p.ledger)
    .db.selectFrom("entities")
    .select("attributes")
    .where("key", "=", key)
    .executeTakeFirstOrThrow();
  return JSON.parse(row.attributes) as Record<string, unknown>;
}

describe.each(BACKENDS)("search after an entity update on %s", (backend) => {
  let p: OpenProject | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  const keysFor = async (text: string) =>
    (await p?.ledger.call("awr_search", { text }, caller))?.hits.map((h) => [
      h.kind,
      h.external_key,
    ]);

  it("finds a work item by its new next action and its new CJK title, and not by the old", async () => {
    p = await openFixtureProject("basic", backend);
    const update = updater(p);
    // Warm every cache first: the updates below must be seen through them.
    expect(await keysFor("wombat")).toEqual([]);
    expect(await keysFor("任务图")).toEqual([]);
    expect(await keysFor("hosted")).toContainEqual(["work_item", "PAY-2"]);

    const attributes = await attributesOf(p, "PAY-2");
    await update("PAY-2", {
      attributes: JSON.stringify({ ...attributes, next_action: "Feed the wombat, then 画任务图" }),
    });
    expect(await keysFor("wombat")).toEqual([["work_item", "PAY-2"]]);
    expect(await keysFor("任务图")).toEqual([["work_item", "PAY-2"]]);
    // Two CJK characters: a substring on SQLite (LIKE), a bigram on PostgreSQL.
    expect(await keysFor("任务")).toEqual([["work_item", "PAY-2"]]);

    await update("PAY-2", {
      title: "结账页面 hosted",
      attributes: JSON.stringify({ ...attributes, next_action: "Ask the quokka" }),
    });
    expect(await keysFor("wombat")).toEqual([]);
    expect(await keysFor("任务图")).toEqual([]);
    expect(await keysFor("quokka")).toEqual([["work_item", "PAY-2"]]);
    expect(await keysFor("账页")).toEqual([["work_item", "PAY-2"]]);
    expect(await keysFor("结账页面")).toEqual([["work_item", "PAY-2"]]);

    // A status change alone keeps the item findable by all of it.
    await update("PAY-2", { status: "blocked" });
    expect(await keysFor("quokka")).toEqual([["work_item", "PAY-2"]]);
    expect(await keysFor("账页")).toEqual([["work_item", "PAY-2"]]);
    const hit = (await p.ledger.call("awr_search", { text: "quokka" }, caller)).hits[0];
    expect(hit?.status).toBe("blocked");
  });

  it("searches the newest events first, and the whole log when the page has room", async () => {
    p = await openFixtureProject("basic", backend);
    // The first events are older than the window; the newest mention "wombat".
    const count = WINDOW + 300;
    await appendEvents(p, count, (i) =>
      i <= 3 ? `hosted zebra ${i} 任务图` : `wombat sighting ${i}`,
    );
    const events = async (input: Record<string, unknown>) =>
      (await p?.ledger.call("awr_search", input as { text: string }, caller))?.hits
        .filter((h) => h.kind === "event")
        .map((h) => h.snippet);
    // Nothing in the window matches and the page has room: the whole log is searched.
    expect(await events({ text: "zebra" })).toEqual([
      "hosted [zebra] 3 任务图",
      "hosted [zebra] 2 任务图",
      "hosted [zebra] 1 任务图",
    ]);
    expect(await events({ text: "任务" })).toEqual([
      "hosted zebra 3 [任务]图",
      "hosted zebra 2 [任务]图",
      "hosted zebra 1 [任务]图",
    ]);
    // The newest matches are in the window.
    expect(await events({ text: "wombat", limit: 2 })).toEqual([
      `[wombat] sighting ${count}`,
      `[wombat] sighting ${count - 1}`,
    ]);
    // Two records match "hosted" (PAY-2 and its decision): they fill a page of one with the
    // window's events, so the old events are not looked for, and the page says it is truncated.
    const full = await p.ledger.call("awr_search", { text: "hosted", limit: 1 }, caller);
    expect(full.truncated).toBe(true);
    expect(full.hits.map((h) => h.kind)).toEqual(["decision"]);
    // A page of three has room: the records and the newest of the old events.
    expect((await events({ text: "hosted", limit: 3 }))?.[0]).toBe("[hosted] zebra 3 任务图");
    // Events alone (or one work item's) are always searched in the whole log.
    expect(await events({ text: "hosted", kind: "event" })).toEqual([
      "[hosted] zebra 3 任务图",
      "[hosted] zebra 2 任务图",
      "[hosted] zebra 1 任务图",
    ]);
  });

  it("answers a search repeated after other writers' events as a fresh ledger does", async () => {
    p = await openFixtureProject("basic", backend);
    const project = p;
    // Another ledger on its own connection to the database appends, as another process would;
    // `p.ledger` keeps whatever it remembered between searches (on PostgreSQL, each query's
    // window matches). Caches belong to a connection, so `fresh` has its own too.
    const ledgerOnOwnConnection = async () => {
      const opened = await reopenDatabase(project.db);
      const ledger = await openLedger({ root: project.root, database: opened.db });
      return { ledger, close: () => ledger.close().then(() => opened.close()) };
    };
    const writer = await ledgerOnOwnConnection();
    const other = writer.ledger;
    const queries = [
      { text: "quail", limit: 2 },
      { text: "quail", limit: 10 },
      { text: "quail hosted", limit: 1 },
      { text: "hosted", limit: 2 },
      { text: "hosted", limit: 3 },
      { text: "hosted", limit: 10 },
    ];
    const compare = async (step: string) => {
      const fresh = await ledgerOnOwnConnection();
      for (const query of queries) {
        const got = await project.ledger.call("awr_search", query, caller);
        const expected = await fresh.ledger.call("awr_search", query, caller);
        expect(got, `${step}: ${JSON.stringify(query)}`).toEqual(expected);
      }
      await fresh.close();
    };
    const quails = async () =>
      (await project.ledger.call("awr_search", { text: "quail", limit: 10 }, caller)).hits.map(
        (h) => h.snippet,
      );
    try {
      await appendEvents(project, 5, (i) => `hosted quail ${i}`);
      await compare("five matches");
      const quail = (n: number) => `hosted [quail] ${n}`;
      expect(await quails()).toEqual([5, 4, 3, 2, 1].map(quail));
      // Two matches more from the other ledger, among events that match nothing.
      await appendEvents({ ...project, ledger: other }, 3, (i) =>
        i === 1 ? "hosted quail 6" : `plain note ${i}`,
      );
      await appendEvents({ ...project, ledger: other }, 1, () => "hosted quail 7");
      await compare("two more matches");
      expect(await quails()).toEqual([7, 6, 5, 4, 3, 2, 1].map(quail));
      // The first three matches leave the window.
      await appendEvents({ ...project, ledger: other }, WINDOW - 7, (i) => `plain note ${i}`);
      await compare("the oldest matches left the window");
      // Everything before leaves the window; one new match in it.
      await appendEvents({ ...project, ledger: other }, WINDOW + 10, (i) =>
        i === WINDOW ? "hosted quail 8" : `plain note ${i}`,
      );
      await compare("only a new match in the window");
      expect((await quails())[0]).toBe(quail(8));
    } finally {
      await writer.close();
    }
  });

  it("leaves the request journal's receipts out of search, and keeps them in the log", async () => {
    p = await openFixtureProject("basic", backend);
    const revision = await p.ledger.revision();
    await p.ledger.call(
      "awr_event_append",
      {
        event_type: "note.added",
        summary: "operation started on the numbat pen",
        request_id: "receipts-1",
        expected_revision: revision,
      },
      caller,
    );
    const written = await ledgerStore(p.ledger)
      .db.selectFrom("events")
      .select(["id", "type"])
      .where("revision", ">", revision)
      .orderBy("seq")
      .execute();
    expect(written.map((e) => e.type)).toEqual([
      "mcp.operation_started",
      "note.added",
      "mcp.operation_finished",
    ]);
    const domainEvent = written[1]?.id;
    const eventHits = async (text: string) =>
      (await p?.ledger.call("awr_search", { text, kind: "event" }, caller))?.hits.map(
        (h) => h.external_key,
      );
    // Words (the full-text index), a short term (substring search) and the receipts' own type
    // name find the domain event and never a receipt.
    expect(await eventHits("operation started")).toEqual([domainEvent]);
    expect(await eventHits("nu")).toEqual([domainEvent]);
    expect(await eventHits("mcp")).toEqual([]);
  });
});

describe("SQLite search upkeep", () => {
  let p: OpenProject | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  const rowsOf = async (table: "search_fts" | "search_trigram", ref: string) =>
    (
      await sql<{
        id: number;
      }>`SELECT rowid AS id FROM ${sql.table(table)} WHERE ref = ${ref}`.execute(
        ledgerStore((p as OpenProject).ledger).db as never,
      )
    ).rows.map((r) => Number(r.id));

  it("rewrites an entity's search rows only when the text they index changes", async () => {
    p = await openFixtureProject("basic", "sqlite");
    const update = updater(p);
    const before = [await rowsOf("search_fts", "PAY-2"), await rowsOf("search_trigram", "PAY-2")];
    expect(before.map((r) => r.length)).toEqual([1, 1]);
    await update("PAY-2", { status: "blocked" });
    // Attributes rewritten with the same next action: nothing indexed changed either.
    const attributes = await attributesOf(p, "PAY-2");
    await update("PAY-2", { attributes: JSON.stringify({ ...attributes, priority: "low" }) });
    expect([await rowsOf("search_fts", "PAY-2"), await rowsOf("search_trigram", "PAY-2")]).toEqual(
      before,
    );
    const hosted = await p.ledger.call("awr_search", { text: "hosted" }, caller);
    expect(hosted.hits.map((h) => h.external_key)).toContain("PAY-2");

    await update("PAY-2", { title: "Quokka checkout page" });
    const after = [await rowsOf("search_fts", "PAY-2"), await rowsOf("search_trigram", "PAY-2")];
    expect(after.map((r) => r.length)).toEqual([1, 1]);
    expect(after[0]).not.toEqual(before[0]);
    expect(after[1]).not.toEqual(before[1]);
    const hits = await p.ledger.call("awr_search", { text: "quokka" }, caller);
    expect(hits.hits.map((h) => [h.kind, h.external_key])).toEqual([["work_item", "PAY-2"]]);
  });

  it("keeps a suffix of at least the newest window of events in the recent table", async () => {
    p = await openFixtureProject("basic", "sqlite");
    const db = ledgerStore(p.ledger).db;
    const count = WINDOW + 700;
    await appendEvents(p, count, (i) => `wombat sighting ${i}`);
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
    const hits = await p.ledger.call("awr_search", { text: "wombat", limit: 3 }, caller);
    // The newest three (equal scores, so newest first).
    expect(hits.hits.map((h) => h.snippet)).toEqual([
      `[wombat] sighting ${count}`,
      `[wombat] sighting ${count - 1}`,
      `[wombat] sighting ${count - 2}`,
    ]);
  });
});
