import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { type IsolationBackend, perBackend } from "./backends.js";

/**
 * Everything a write could change: every row of every ledger table (each table's rows as sorted
 * JSON) read in one read-only transaction, plus the bytes of every file under the project root.
 * "Nothing changed" means two snapshots are deep-equal.
 *
 * `project_locks` is left out: it is the cross-process write lock's lease (SQLite), which every
 * write attempt takes and gives back, refused ones included; it is coordination, not ledger state.
 * The database's own files are left out of the file part, being read through the tables.
 */
export interface Snapshot {
  tables: Record<string, string[]>;
  files: Record<string, string>;
}

const NOT_STATE = new Set(["project_locks"]);

export interface DatabaseLocation {
  backend: IsolationBackend;
  root: string;
  url?: string;
  schema?: string;
}

export async function snapshot(where: DatabaseLocation): Promise<Snapshot> {
  const tables = await perBackend(where.backend, {
    sqlite: async () => readSqlite(where.root),
    postgres: () => readPostgres(where),
  })();
  return { tables, files: await readFiles(where.root) };
}

function readSqlite(root: string): Record<string, string[]> {
  const db = new Database(join(root, ".awr", "state.db"), { readonly: true, fileMustExist: true });
  try {
    return db.transaction(() => {
      const names = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .all() as { name: string }[];
      const out: Record<string, string[]> = {};
      for (const { name } of names) {
        if (NOT_STATE.has(name)) continue;
        const rows = db.prepare(`SELECT * FROM "${name.replaceAll('"', '""')}"`).all();
        out[name] = rows.map((row) => JSON.stringify(row)).sort();
      }
      return out;
    })();
  } finally {
    db.close();
  }
}

async function readPostgres(where: DatabaseLocation): Promise<Record<string, string[]>> {
  const client = new pg.Client({ connectionString: where.url });
  await client.connect();
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    const names = await client.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE' ORDER BY table_name",
      [where.schema],
    );
    const out: Record<string, string[]> = {};
    for (const { table_name: name } of names.rows) {
      if (NOT_STATE.has(name)) continue;
      const quoted = `"${(where.schema as string).replaceAll('"', '""')}"."${name.replaceAll('"', '""')}"`;
      const rows = await client.query(`SELECT * FROM ${quoted}`);
      out[name] = rows.rows.map((row) => JSON.stringify(row)).sort();
    }
    await client.query("COMMIT");
    return out;
  } finally {
    await client.end();
  }
}

async function readFiles(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (!/^state\.db(-wal|-shm|-journal)?$/.test(entry.name)) {
        out[relative(root, path)] = (await readFile(path)).toString("base64");
      }
    }
  };
  await walk(root);
  return out;
}

/** The rows of one table, parsed (for the assertions that read a table). */
export function rows<T = Record<string, unknown>>(snap: Snapshot, table: string): T[] {
  return (snap.tables[table] ?? []).map((row) => JSON.parse(row) as T);
}
