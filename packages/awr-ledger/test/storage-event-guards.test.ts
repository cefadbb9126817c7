import { appendEvent, LedgerStore, spendRevision, storageDialect } from "@awr/awr-ledger/testing";
import { type Kysely, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import {
  BACKENDS,
  freshDatabase,
  migrateWithProject,
  reopenDatabase,
  type TestDatabase,
} from "./helpers/backends.js";

// Events are append-only at the database level: every way a statement could rewrite or remove
// a stored event is refused, on the connection that wrote it and on a second one (a reader or a
// restarted process), and the event is unchanged afterwards (docs/design/work-branches.md,
// "PostgreSQL").
describe.each(BACKENDS)("event guards on %s", (backend) => {
  let t: TestDatabase | undefined;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    await t?.close();
    t = undefined;
  });

  async function storedEvent(): Promise<{ id: string; seq: number }> {
    t = await freshDatabase(backend);
    await migrateWithProject(t, {
      project_id: "P1",
      name: "p",
      created_at: "now",
      current_branch_id: null,
    });
    const store = new LedgerStore(t.db, t.dialect, "P1");
    const row = await store.write(async (tx) =>
      appendEvent(tx, { type: "x.kept", revision: await spendRevision(tx), summary: "kept" }),
    );
    return { id: row.id, seq: row.seq };
  }

  // biome-ignore lint/suspicious/noExplicitAny: raw statements against the test schema.
  async function refusals(db: Kysely<any>, event: { id: string; seq: number }): Promise<void> {
    const values = sql`(${event.id}, ${event.seq}, 1, 'x.forged', '{}', 'now')`;
    const columns = sql.raw("(id, seq, revision, type, payload, time)");
    await expect(
      sql`UPDATE events SET type = 'x.changed' WHERE id = ${event.id}`.execute(db),
    ).rejects.toThrow(/append-only/);
    await expect(sql`DELETE FROM events WHERE id = ${event.id}`.execute(db)).rejects.toThrow(
      /append-only/,
    );
    await expect(
      sql`INSERT INTO events ${columns} VALUES ${values}
          ON CONFLICT (id) DO UPDATE SET type = 'x.forged'`.execute(db),
    ).rejects.toThrow(/append-only/);
    // SQLite's own overwrite forms (PostgreSQL has none).
    const replaces = storageDialect(backend).choose({
      sqlite: [
        sql`INSERT OR REPLACE INTO events ${columns} VALUES ${values}`,
        sql`REPLACE INTO events ${columns} VALUES ${values}`,
      ],
      postgres: [],
    });
    for (const replace of replaces)
      await expect(replace.execute(db)).rejects.toThrow(/append-only/);
    const rows = await sql<{ type: string }>`SELECT type FROM events`.execute(db);
    expect(rows.rows).toEqual([{ type: "x.kept" }]);
  }

  it("refuses UPDATE, DELETE, upsert and REPLACE on the writing connection", async () => {
    const event = await storedEvent();
    await refusals((t as TestDatabase).db, event);
  });

  it("refuses them on a second connection too", async () => {
    const event = await storedEvent();
    const second = await reopenDatabase(t as TestDatabase);
    closers.push(second.close);
    await refusals(second.db, event);
  });
});
