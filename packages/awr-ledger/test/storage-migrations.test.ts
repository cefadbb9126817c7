import { isLedgerError } from "@awr/awr-ledger";
import {
  appendEvent,
  LedgerStore,
  latestSchemaVersion,
  MIGRATIONS,
  migrateToLatest,
  spendRevision,
} from "@awr/awr-ledger/testing";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import {
  BACKENDS,
  freshDatabase,
  migrateWithProject,
  type TestDatabase,
} from "./helpers/backends.js";

describe.each(BACKENDS)("storage on %s", (backend) => {
  let t: TestDatabase | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  async function migratedStore(): Promise<LedgerStore> {
    t = await freshDatabase(backend);
    await migrateWithProject(t, {
      project_id: "P1",
      name: "p",
      created_at: "now",
      current_branch_id: null,
    });
    return new LedgerStore(t.db, t.dialect, "P1");
  }

  it("applies every migration once and is idempotent", async () => {
    t = await freshDatabase(backend);
    const first = await migrateToLatest(t.db, t.dialect);
    expect(first.from).toBe(0);
    expect(first.to).toBe(latestSchemaVersion());
    expect(first.applied).toEqual(MIGRATIONS.map((m) => m.version));
    const again = await migrateToLatest(t.db, t.dialect);
    expect(again.applied).toEqual([]);
  });

  it("refuses a ledger whose schema is newer than the code, naming both versions", async () => {
    t = await freshDatabase(backend);
    await migrateToLatest(t.db, t.dialect);
    const future = latestSchemaVersion() + 5;
    await t.db
      .insertInto("awr_migrations")
      .values({ version: future, name: "from the future", applied_at: "x" })
      .execute();
    const error = await migrateToLatest(t.db, t.dialect).catch((e: unknown) => e);
    expect(isLedgerError(error, "Unsupported")).toBe(true);
    expect((error as Error).message).toContain(`version ${future}`);
    expect((error as Error).message).toContain(`version ${latestSchemaVersion()}`);
    expect((error as Error).message).toMatch(/Upgrade/);
  });

  it("spends revisions that only grow and binds events to them with dense seq numbers", async () => {
    const store = await migratedStore();
    const revisions: number[] = [];
    for (let i = 0; i < 3; i++) {
      revisions.push(
        await store.write(async (tx) => {
          const revision = await spendRevision(tx);
          await appendEvent(tx, { type: "test.step", revision, summary: `step ${i}` });
          return revision;
        }),
      );
    }
    expect(revisions).toEqual([1, 2, 3]);
    expect(await store.currentRevision()).toBe(3);
    const events = await store.db.selectFrom("events").selectAll().orderBy("seq").execute();
    expect(events.map((e) => [e.seq, e.revision])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
  });

  it("makes every runtime row of a ledger from before work branches a row of main", async () => {
    t = await freshDatabase(backend);
    const before = MIGRATIONS.filter((m) => m.version < 10);
    await migrateToLatest(t.db, t.dialect, before);
    const db = t.db;
    await sql`INSERT INTO project_state (project_id, name, revision, created_at)
              VALUES ('P1', 'p', 3, 'now')`.execute(db);
    await sql`INSERT INTO sessions (id, client, conversation, work, agent, provider, model,
                status, start_revision, started_at)
              VALUES ('S1', 'c', 'conv', 'W1', 'a', 'p', 'm', 'active', 1, 'now')`.execute(db);
    await sql`INSERT INTO claims (id, work, session, client, status, acquired_revision,
                acquired_at)
              VALUES ('C1', 'W1', 'S1', 'c', 'active', 1, 'now')`.execute(db);
    await sql`INSERT INTO checkpoints (id, session, revision, digest, open_loops,
                changed_entities, created_at)
              VALUES ('K1', 'S1', 2, 'd', '[]', '[]', 'now')`.execute(db);
    await sql`INSERT INTO events (id, seq, revision, type, payload, time)
              VALUES ('E1', 1, 1, 'x.old', '{}', 'now')`.execute(db);
    await sql`INSERT INTO evidence (id, external_key, evidence_type, level, summary, scope,
                revision, recorded_at)
              VALUES ('V1', 'ev-1', 'test', 'verified', 's', '[]', 3, 'now')`.execute(db);
    const result = await migrateToLatest(db, t.dialect);
    expect(result.applied).toContain(10);
    const state = await db.selectFrom("project_state").select("current_branch_id").execute();
    expect(state).toEqual([{ current_branch_id: null }]);
    for (const table of ["sessions", "claims", "checkpoints", "events", "evidence"] as const) {
      const rows = await db.selectFrom(table).select("branch").execute();
      expect(rows, table).toEqual([{ branch: null }]);
    }
    expect(await db.selectFrom("branches").selectAll().execute()).toEqual([]);
  });

  it("allows one active claim per work item and branch, and claims across branches", async () => {
    const store = await migratedStore();
    const claim = (id: string, branch: string | null, status = "active") =>
      store.db
        .insertInto("claims")
        .values({
          id,
          work: "W1",
          session: `S-${id}`,
          client: "c",
          status,
          ttl_ms: null,
          expires_at: null,
          acquired_revision: 1,
          ended_revision: null,
          acquired_at: "now",
          ended_at: null,
          branch,
        })
        .execute();
    await claim("C-main", null);
    await claim("C-b1", "01BRANCHB1");
    await claim("C-b2", "01BRANCHB2");
    await claim("C-old", "01BRANCHB1", "released");
    await expect(claim("C-main-2", null)).rejects.toThrow(/unique|UNIQUE/);
    await expect(claim("C-b1-2", "01BRANCHB1")).rejects.toThrow(/unique|UNIQUE/);
    const active = await store.db
      .selectFrom("claims")
      .select(["id", "branch"])
      .where("status", "=", "active")
      .orderBy("id")
      .execute();
    expect(active).toEqual([
      { id: "C-b1", branch: "01BRANCHB1" },
      { id: "C-b2", branch: "01BRANCHB2" },
      { id: "C-main", branch: null },
    ]);
  });

  it("keeps events immutable: UPDATE and DELETE are refused by the database", async () => {
    const store = await migratedStore();
    await store.write(async (tx) => {
      await appendEvent(tx, { type: "x.y", revision: await spendRevision(tx), payload: { a: 1 } });
    });
    await expect(store.db.updateTable("events").set({ type: "changed" }).execute()).rejects.toThrow(
      /append-only/,
    );
    await expect(store.db.deleteFrom("events").execute()).rejects.toThrow(/append-only/);
    const rows = await store.db.selectFrom("events").select("type").execute();
    expect(rows).toEqual([{ type: "x.y" }]);
  });

  it("rolls a failed write back completely, spending no revision", async () => {
    const store = await migratedStore();
    await expect(
      store.write(async (tx) => {
        await appendEvent(tx, { type: "doomed", revision: await spendRevision(tx) });
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await store.currentRevision()).toBe(0);
    const count = await sql<{ n: number }>`SELECT count(*) AS n FROM events`.execute(store.db);
    expect(Number(count.rows[0]?.n)).toBe(0);
  });

  it("serialises concurrent writers in one process without losing an increment", async () => {
    const store = await migratedStore();
    await Promise.all(
      Array.from({ length: 10 }, () =>
        store.withProjectLock(async (held) => {
          const before = await held.currentRevision();
          await held.write(async (tx) => {
            await spendRevision(tx);
          });
          await held.write(async (tx) => {
            const now = await spendRevision(tx);
            expect(now).toBe(before + 2);
          });
        }),
      ),
    );
    expect(await store.currentRevision()).toBe(20);
  });

  it("rejects with the abort reason unchanged when the signal is already aborted", async () => {
    const store = await migratedStore();
    const controller = new AbortController();
    const reason = new Error("stop now");
    controller.abort(reason);
    await expect(store.write(async () => 1, { signal: controller.signal })).rejects.toBe(reason);
    await expect(store.withProjectLock(async () => 1, { signal: controller.signal })).rejects.toBe(
      reason,
    );
  });
});
