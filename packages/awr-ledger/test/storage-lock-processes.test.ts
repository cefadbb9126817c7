import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { LedgerStore } from "@awr/awr-ledger/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, freshDatabase, migrateWithProject } from "./helpers/backends.js";
import { buildPackageForChildren } from "./helpers/child-build.js";

const run = promisify(execFile);

// Each child enters the project lock ROUNDS times; inside it commits an "enter" event, waits,
// then commits an "exit" event as separate durable transactions. If the lock serialises across
// processes, the event log is a clean enter/exit alternation per holder.
const CHILD = `
const [entry, backend, location, url, schema, tag] = process.argv.slice(2);
const m = await import(entry);
const opened = await m.storageDialect(backend).choose({
  sqlite: () => m.openSqliteDatabase(location),
  postgres: () => m.openPostgresDatabase(url, { schema, poolMax: 3 }),
})();
const store = new m.LedgerStore(opened.db, opened.dialect, "P-LOCK");
for (let i = 0; i < 6; i++) {
  // every other hold folds its lease into its first and last writes, as the journal does
  await store.withProjectLock(async (held) => {
    await held.write(async (tx) => {
      const revision = await m.spendRevision(tx);
      await m.appendEvent(tx, { type: "lock.enter", revision, client: tag });
    });
    await new Promise((r) => setTimeout(r, 3));
    await held.write(async (tx) => {
      const revision = await m.spendRevision(tx);
      await m.appendEvent(tx, { type: "lock.exit", revision, client: tag });
    }, { releasesLock: i % 2 === 1 });
  }, { leaseInWrites: i % 2 === 1 });
  // plain single-transaction writes must also wait for another process's held lock
  await store.write(async (tx) => {
    const revision = await m.spendRevision(tx);
    await m.appendEvent(tx, { type: "plain", revision, client: tag });
  });
}
await opened.close();
`;

describe.each(BACKENDS)("the project lock across processes on %s", (backend) => {
  let build: ReturnType<typeof buildPackageForChildren>;
  beforeAll(() => {
    build = buildPackageForChildren();
    writeFileSync(join(build.dir, "lock-child.mjs"), CHILD);
  });
  afterAll(() => build.remove());

  it("serialises two processes holding the lock across several transactions", async () => {
    const t = await freshDatabase(backend);
    try {
      await migrateWithProject(t, { project_id: "P-LOCK", name: "lock", created_at: "x" });
      const args = (tag: string) => [
        join(build.dir, "lock-child.mjs"),
        build.testingEntry,
        backend,
        t.location,
        t.url ?? "",
        t.schema ?? "",
        tag,
      ];
      await Promise.all([
        run(process.execPath, args("A"), { timeout: 60_000 }),
        run(process.execPath, args("B"), { timeout: 60_000 }),
      ]);
      const store = new LedgerStore(t.db, t.dialect, "P-LOCK");
      const events = await t.db.selectFrom("events").selectAll().orderBy("seq").execute();
      expect(events).toHaveLength(36);
      expect(await store.currentRevision()).toBe(36);
      let inside: string | null = null;
      for (const event of events) {
        if (event.type === "lock.enter") {
          expect(inside).toBeNull();
          inside = event.client;
        } else if (event.type === "lock.exit") {
          expect(inside).toBe(event.client);
          inside = null;
        } else {
          expect(inside).toBeNull();
        }
      }
      expect(new Set(events.map((e) => e.client))).toEqual(new Set(["A", "B"]));
    } finally {
      await t.close();
    }
  });
});

describe("the SQLite lease", () => {
  it("is taken over once a crashed holder's lease has expired", async () => {
    const t = await freshDatabase("sqlite");
    try {
      await migrateWithProject(t, { project_id: "P", name: "p", created_at: "x" });
      await t.db
        .insertInto("project_locks")
        .values({ project_id: "P", holder: "crashed", expires_at: Date.now() - 1 })
        .execute();
      const store = new LedgerStore(t.db, t.dialect, "P");
      const value = await store.withProjectLock(async () => "acquired");
      expect(value).toBe("acquired");
      // Released: the row stays, expired, with the taker as its last holder.
      const leases = await t.db.selectFrom("project_locks").selectAll().execute();
      expect(leases).toHaveLength(1);
      expect(leases[0]?.holder).not.toBe("crashed");
      expect(Number(leases[0]?.expires_at)).toBeLessThanOrEqual(Date.now());
    } finally {
      await t.close();
    }
  });
});
