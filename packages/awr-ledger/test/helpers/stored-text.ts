import { sql } from "kysely";
import type { TestDatabase } from "./backends.js";

/**
 * Every row of every table of the test database, as one JSON text: what a test searches to
 * prove that a value was never stored anywhere (projection, journal, events, FTS tables).
 */
export async function storedText(database: TestDatabase): Promise<string> {
  const tables = await database.db.introspection.getTables();
  const own = tables.filter(
    database.dialect.choose({
      sqlite: () => true,
      postgres: (t: { schema?: string | undefined }) => t.schema === database.location,
    }),
  );
  const parts: string[] = [];
  for (const table of own) {
    const rows = await sql`select * from ${sql.table(table.name)}`.execute(database.db);
    parts.push(JSON.stringify(rows.rows));
  }
  return parts.join("\n");
}
