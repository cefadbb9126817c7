// PreparedQuery (src/storage/prepared-query.ts): a query built with the typed builder once per SQL
// family and run with fresh values, on each backend; on SQLite, directly on a held connection,
// inside the transaction that connection has open.
import {
  appendEvent,
  type LedgerTx,
  migrateToLatest,
  PreparedQuery,
  withHeldConnection,
} from "@awr/awr-ledger/testing";
import { type KyselyPlugin, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { BACKENDS, freshDatabase, type TestDatabase } from "./helpers/backends.js";

interface Row {
  seq: number;
  type: string;
  summary: string | null;
}

describe.each(BACKENDS)("a prepared query, %s", (backend) => {
  let t: TestDatabase | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  async function migrated(): Promise<TestDatabase> {
    t = await freshDatabase(backend);
    await migrateToLatest(t.db, t.dialect);
    return t;
  }

  /** The events of one type, in order, with a count of how often the builder ran. */
  function eventsOfType() {
    let builds = 0;
    const query = new PreparedQuery<{ type: string }, Row>((db, $) => {
      builds++;
      return db
        .selectFrom("events")
        .select(["seq", "type", "summary"])
        .where("type", "=", $("type"))
        .orderBy("seq");
    });
    return { query, builds: () => builds };
  }

  it("answers as the builder does, building and compiling once", async () => {
    const { db } = await migrated();
    for (const [type, summary] of [
      ["a", "first"],
      ["b", "second"],
      ["a", "third"],
    ] as const) {
      await appendEvent(db, { type, revision: 1, summary });
    }
    const { query, builds } = eventsOfType();
    for (const type of ["a", "b", "a", "none"]) {
      const expected = await db
        .selectFrom("events")
        .select(["seq", "type", "summary"])
        .where("type", "=", type)
        .orderBy("seq")
        .execute();
      const rows = (await query.all(db, { type })).map((r) => ({ ...r, seq: Number(r.seq) }));
      expect(rows).toEqual(expected.map((r) => ({ ...r, seq: Number(r.seq) })));
    }
    expect((await query.first(db, { type: "a" }))?.summary).toBe("first");
    expect(await query.first(db, { type: "none" })).toBeUndefined();
    expect(builds()).toBe(1);
  });

  it("binds each value as a parameter, whatever it holds, and a name used twice twice", async () => {
    const { db } = await migrated();
    const odd = "awr-param type'; DROP TABLE events; --";
    await appendEvent(db, { type: odd, revision: 1, summary: "kept verbatim" });
    const { query } = eventsOfType();
    expect((await query.first(db, { type: odd }))?.summary).toBe("kept verbatim");
    const either = new PreparedQuery<{ text: string }, Row>((d, $) =>
      d
        .selectFrom("events")
        .select(["seq", "type", "summary"])
        .where((eb) => eb.or([eb("type", "=", $("text")), eb("summary", "=", $("text"))])),
    );
    expect(await either.all(db, { text: "kept verbatim" })).toHaveLength(1);
    expect(await either.all(db, { text: odd })).toHaveLength(1);
  });

  it("refuses a query that puts a placeholder into its SQL instead of a parameter", async () => {
    const { db } = await migrated();
    const inlined = new PreparedQuery<{ type: string }, Row>((d, $) =>
      d
        .selectFrom("events")
        .select(["seq", "type", "summary"])
        .where("type", "=", sql.lit($("type"))),
    );
    await expect(inlined.all(db, { type: "a" })).rejects.toThrow(/placeholder into its SQL/);
  });

  it("builds afresh, with its plugins, on a handle that has plugins", async () => {
    const { db } = await migrated();
    await appendEvent(db, { type: "a", revision: 1, summary: "one" });
    let transformed = 0;
    const counting: KyselyPlugin = {
      transformQuery: (args) => {
        transformed++;
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const { query, builds } = eventsOfType();
    const withPlugin = db.withPlugin(counting);
    expect(await query.all(withPlugin, { type: "a" })).toHaveLength(1);
    expect(await query.all(withPlugin, { type: "a" })).toHaveLength(1);
    expect(builds()).toBe(2);
    expect(transformed).toBe(2);
  });

  it("runs inside the write transaction of the handle it is given", async () => {
    const { db, dialect } = await migrated();
    const { query } = eventsOfType();
    const failure = new Error("refused");
    await expect(
      dialect.transaction(db, async (tx: LedgerTx) => {
        await appendEvent(tx, { type: "a", revision: 1, summary: "rolled back" });
        expect(await query.all(tx, { type: "a" })).toHaveLength(1);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await query.all(db, { type: "a" })).toHaveLength(0);
  });
});

describe("a prepared query on a held SQLite connection", () => {
  let t: TestDatabase | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("is seen by nobody else until the transaction commits", async () => {
    t = await freshDatabase("sqlite");
    const { db } = t;
    await migrateToLatest(db, t.dialect);
    const count = new PreparedQuery<Record<string, never>, { n: number }>((d) =>
      d.selectFrom("events").select((eb) => eb.fn.countAll<number>().as("n")),
    );
    let committed = false;
    let outside: Promise<{ n: number; afterCommit: boolean }> | undefined;
    let insideCount: number | undefined;
    await withHeldConnection(db, async (conn) => {
      await sql`BEGIN IMMEDIATE`.execute(conn);
      await appendEvent(conn, { type: "a", revision: 1 });
      insideCount = Number((await count.first(conn, {}))?.n);
      // Another caller on the root handle waits for the connection: it must not run on it
      // while the transaction is open (it would read the uncommitted row).
      outside = count.first(db, {}).then((row) => ({ n: Number(row?.n), afterCommit: committed }));
      await new Promise((resolve) => setTimeout(resolve, 20));
      await sql`COMMIT`.execute(conn);
      committed = true;
    });
    expect(insideCount).toBe(1);
    expect(await outside).toEqual({ n: 1, afterCommit: true });
  });
});
