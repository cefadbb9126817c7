import { join } from "node:path";
import { openPostgresDatabase, openSqliteDatabase } from "@awr/awr-ledger/testing";
import Database from "better-sqlite3";
import pg from "pg";
import { describe, expect } from "vitest";
import { BACKENDS, perBackend } from "./support/backends.js";
import { condition } from "./support/condition.js";
import type { IsolationCase } from "./support/isolation-case.js";
import { withCase } from "./support/isolation-case.js";
import { rows } from "./support/snapshot.js";

/**
 * Condition 2: a written event survives every statement that would change it, on a connection
 * opened the way the ledger opens its database (the same opener and settings) and on a read-only
 * connection. `awr event append` processes write the events; this test process is the attacker.
 */

/** Each way to rewrite or remove event `id`; every one must fail. */
async function attackWriteConnection(c: IsolationCase, id: string): Promise<string[]> {
  const { backend, root } = c.location;
  const opened = await perBackend(backend, {
    sqlite: () => openSqliteDatabase(join(root, ".awr", "state.db")),
    postgres: () =>
      openPostgresDatabase(c.location.url as string, {
        schema: c.location.schema as string,
        poolMax: 1,
      }),
  })();
  const db = opened.db;
  const succeeded: string[] = [];
  const attempt = async (name: string, run: () => Promise<unknown>) => {
    try {
      await run();
      succeeded.push(name);
    } catch {
      // refused, as it must be
    }
  };
  try {
    const row = await db
      .selectFrom("events")
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    const forged = { ...row, summary: "forged", payload: '{"forged":true}' };
    await attempt("UPDATE", () =>
      db.updateTable("events").set({ summary: "forged" }).where("id", "=", id).execute(),
    );
    await attempt("DELETE", () => db.deleteFrom("events").where("id", "=", id).execute());
    await attempt("INSERT ... ON CONFLICT DO UPDATE", () =>
      db
        .insertInto("events")
        .values(forged)
        .onConflict((oc) =>
          oc.column("id").doUpdateSet({ summary: "forged", payload: '{"forged":true}' }),
        )
        .execute(),
    );
    await perBackend(backend, {
      sqlite: () => attempt("REPLACE", () => db.replaceInto("events").values(forged).execute()),
      postgres: () => attempt("TRUNCATE", () => postgresStatement(c, "TRUNCATE events")),
    })();
  } finally {
    await opened.close();
  }
  return succeeded;
}

async function postgresStatement(
  c: IsolationCase,
  statement: string,
  readOnly = false,
): Promise<void> {
  const client = new pg.Client({ connectionString: c.location.url });
  await client.connect();
  try {
    await client.query(`SET search_path TO "${c.location.schema}"`);
    if (readOnly) await client.query("BEGIN READ ONLY");
    await client.query(statement);
    if (readOnly) await client.query("COMMIT");
  } finally {
    await client.end();
  }
}

/** The same statements on a read-only connection. */
async function attackReadConnection(c: IsolationCase, id: string): Promise<string[]> {
  const quoted = `'${id.replaceAll("'", "''")}'`;
  const statements = [
    `UPDATE events SET summary = 'forged' WHERE id = ${quoted}`,
    `DELETE FROM events WHERE id = ${quoted}`,
    perBackend(c.backend, {
      sqlite: `REPLACE INTO events SELECT * FROM events WHERE id = ${quoted}`,
      postgres: "TRUNCATE events",
    }),
  ];
  const succeeded: string[] = [];
  for (const statement of statements) {
    try {
      await perBackend(c.backend, {
        sqlite: async () => {
          const db = new Database(join(c.root, ".awr", "state.db"), {
            readonly: true,
            fileMustExist: true,
          });
          try {
            db.exec(statement);
          } finally {
            db.close();
          }
        },
        postgres: () => postgresStatement(c, statement, true),
      })();
      succeeded.push(`read connection: ${statement}`);
    } catch {
      // refused, as it must be
    }
  }
  return succeeded;
}

describe.each(BACKENDS)("%s", (backend) => {
  condition("event_row_immutability", () =>
    withCase(backend, async (c) => {
      for (const summary of ["first count done", "second count done"]) {
        await c.awrOk(
          "event",
          "append",
          "--type",
          "report.observed",
          "--summary",
          summary,
          "--work",
          "W",
        );
      }
      const history = await c.awrOk<{ events: unknown[] }>("event", "history", "--work", "W");
      const before = await c.snapshot();
      const written = rows<{ id: string; type: string }>(before, "events").filter(
        (e) => e.type === "report.observed",
      );
      expect(written).toHaveLength(2);
      const succeeded: string[] = [];
      for (const event of written) {
        succeeded.push(...(await attackWriteConnection(c, event.id)));
        succeeded.push(...(await attackReadConnection(c, event.id)));
      }
      expect(succeeded).toEqual([]);
      const after = await c.snapshot();
      expect(after.tables["events"]).toEqual(before.tables["events"]);
      expect(await c.awrOk("event", "history", "--work", "W")).toEqual(history);
    }),
  );
});
