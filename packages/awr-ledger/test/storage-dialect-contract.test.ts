// The contract every StorageDialect satisfies (src/storage/dialect.ts), run over each database:
// transactions, the project write lock across handles, upserts, migrations and search.
import {
  detectDialect,
  LedgerStore,
  type LedgerTx,
  MIGRATIONS,
  type OpenedDatabase,
  STORAGE_DIALECTS,
  spendRevision,
} from "@awr/awr-ledger/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  BACKENDS,
  freshDatabase,
  migrateWithProject,
  reopenDatabase,
  type TestDatabase,
} from "./helpers/backends.js";
import { type OpenProject, openFixtureProject } from "./helpers/projects.js";

const PROJECT = "P-CONTRACT";

/** Resolves once `condition` holds; fails after five seconds. */
async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met within 5 s");
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe.each(BACKENDS)("the %s storage dialect", (backend) => {
  let t: TestDatabase | undefined;
  let second: OpenedDatabase | undefined;
  let project: OpenProject | undefined;
  afterEach(async () => {
    await second?.close();
    await t?.close();
    await project?.close();
    t = second = project = undefined;
  });

  async function migrated(): Promise<TestDatabase> {
    t = await freshDatabase(backend);
    await migrateWithProject(t, { project_id: PROJECT, name: "p", created_at: "now" });
    return t;
  }

  const revision = async (db: LedgerTx) =>
    Number(
      (await db.selectFrom("project_state").select("revision").executeTakeFirstOrThrow()).revision,
    );

  it("is the dialect of its own databases, and chooses its own entry", async () => {
    const database = await migrated();
    expect(database.dialect).toBe(STORAGE_DIALECTS[backend]);
    expect(detectDialect(database.db)).toBe(database.dialect);
    expect(database.dialect.name).toBe(backend);
    expect(database.dialect.choose({ sqlite: "s", postgres: "p" })).toBe(backend[0]);
  });

  it("commits a transaction, and rolls back every statement of one that throws", async () => {
    const { db, dialect } = await migrated();
    await dialect.transaction(db, (tx) => spendRevision(tx));
    const failure = await dialect
      .transaction(db, async (tx) => {
        await spendRevision(tx);
        throw new Error("stop");
      })
      .catch((e: unknown) => e);
    expect((failure as Error).message).toBe("stop");
    expect(await revision(db)).toBe(1);
  });

  it("upserts: the same insert … on conflict inserts once, then updates in place", async () => {
    const { db, dialect } = await migrated();
    const upsert = (holder: string) =>
      dialect.transaction(db, (tx) =>
        tx
          .insertInto("project_locks")
          .values({ project_id: PROJECT, holder, expires_at: 0 })
          .onConflict((oc) => oc.column("project_id").doUpdateSet({ holder }))
          .execute(),
      );
    await upsert("first");
    await upsert("second");
    const rows = await db.selectFrom("project_locks").select("holder").execute();
    expect(rows).toEqual([{ holder: "second" }]);
  });

  it("keeps every other holder and writer out until the holder lets go", async () => {
    const database = await migrated();
    const { db, dialect } = database;
    // Statements the waiting parties issue, counted as they are compiled.
    const issued = { write: 0, hold: 0 };
    const counted = (party: keyof typeof issued) =>
      db.withPlugin({
        transformQuery: ({ node }) => {
          issued[party]++;
          return node;
        },
        transformResult: async ({ result }) => result,
      });
    const order: string[] = [];
    let waiting: Promise<unknown> | undefined;
    // The lock is taken below the in-process mutex, as another process would hold it: a store's
    // write and a second holder then meet only the dialect's cross-process lock.
    await dialect.holdProjectLock(
      db,
      PROJECT,
      async () => {
        waiting = Promise.all([
          new LedgerStore(counted("write"), dialect, PROJECT)
            .write((tx) => spendRevision(tx))
            .then(() => order.push("wrote")),
          dialect
            .holdProjectLock(counted("hold"), PROJECT, async () => order.push("held"), {}, false)
            .then(() => undefined),
        ]);
        // Both have tried (the second holder more than once) and neither got in.
        await until(() => issued.write >= 1 && issued.hold >= 2);
        expect(order).toEqual([]);
        order.push("released");
      },
      {},
      false,
    );
    await waiting;
    expect(order[0]).toBe("released");
    expect(order.slice(1).sort()).toEqual(["held", "wrote"]);
    expect(await revision(db)).toBe(1);
  });

  it("lets the lock's holder write without waiting", async () => {
    const { db, dialect } = await migrated();
    const store = new LedgerStore(db, dialect, PROJECT);
    const spent = await store.withProjectLock(async (held) => [
      await held.write((tx) => spendRevision(tx)),
      await held.write((tx) => spendRevision(tx)),
    ]);
    expect(spent).toEqual([1, 2]);
  });

  it("serialises concurrent read-modify-write transactions from two handles", async () => {
    const database = await migrated();
    second = await reopenDatabase(database);
    const stores = [database, second].map((d) => new LedgerStore(d.db, d.dialect, PROJECT));
    const spent = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (stores[i % 2] as LedgerStore).write((tx) => spendRevision(tx)),
      ),
    );
    expect([...spent].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(await revision(database.db)).toBe(20);
  });

  it("runs its own statements of every migration", async () => {
    const database = await migrated();
    for (const migration of MIGRATIONS) {
      expect(Array.isArray(database.dialect.choose(migration.statements))).toBe(true);
    }
    const applied = await database.db.selectFrom("awr_migrations").select("version").execute();
    expect(applied.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
  });

  it("builds search queries from any text: prefixes, quotes and operators are only words", async () => {
    project = await openFixtureProject("basic", backend);
    const caller = { client: "stdio" };
    const search = (text: string) => project?.ledger.call("awr_search", { text }, caller);
    expect((await search("host"))?.hits[0]).toMatchObject({ external_key: "PAY-2" });
    for (const hostile of [`hosted" page'`, "hosted:* & page | !", "(hosted) -page*"]) {
      expect((await search(hostile))?.hits[0], hostile).toMatchObject({ external_key: "PAY-2" });
    }
    // OR is a word to find, not an operator: no record has all of hosted, or, zebrafish.
    expect((await search("hosted OR zebrafish"))?.hits).toEqual([]);
  });
});
