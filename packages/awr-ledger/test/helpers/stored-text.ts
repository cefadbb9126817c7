import { sql } from "kysely";
import type { TestDatabase } from "./backends.js";

/** The test database's own tables: on PostgreSQL, those of its schema. */
async function ownTables(database: TestDatabase): Promise<string[]> {
  return database.dialect.choose({
    sqlite: async () => (await database.db.introspection.getTables()).map((t) => t.name),
    // Read from pg_tables for this schema alone: kysely's introspection lists every schema of
    // the server, and fails when a test running beside this one drops its schema meanwhile.
    postgres: async () =>
      (
        await sql<{ tablename: string }>`
          select tablename from pg_catalog.pg_tables where schemaname = ${database.location}
          order by tablename`.execute(database.db)
      ).rows.map((r) => r.tablename),
  })();
}

/**
 * Every row of every table of the test database, as one JSON text: what a test searches to
 * prove that a value was never stored anywhere (projection, journal, events, FTS tables).
 */
export async function storedText(database: TestDatabase): Promise<string> {
  const parts: string[] = [];
  for (const name of await ownTables(database)) {
    const rows = await sql`select * from ${sql.table(name)}`.execute(database.db);
    parts.push(JSON.stringify(rows.rows));
  }
  return parts.join("\n");
}
