import { join } from "node:path";
import type { Dialect, Kysely } from "kysely";
import { LedgerError } from "./errors.js";
import type { Manifest } from "./sources/manifest.js";
import { AWR_DIR } from "./sources/read-sources.js";
import type { Backend } from "./storage/migration.js";
import {
  detectBackend,
  kyselyFromDialect,
  type OpenedDatabase,
  openPostgresDatabase,
  openSqliteDatabase,
} from "./storage/open-database.js";
import type { LedgerSchema } from "./storage/schema.js";

/** A caller-provided database: a Kysely instance or a kysely Dialect (SQLite or PostgreSQL). */
// biome-ignore lint/suspicious/noExplicitAny: any Kysely instance is accepted; the ledger owns its schema.
export type DatabaseInput = Kysely<any> | Dialect;

export const STATE_DB = "state.db";

function isDialect(value: DatabaseInput): value is Dialect {
  return (
    typeof (value as Dialect).createDriver === "function" &&
    typeof (value as Dialect).createAdapter === "function"
  );
}

/**
 * Opens the ledger database for a project: the caller's Kysely instance or dialect if given,
 * else what the manifest's [storage] says (SQLite `<root>/.awr/state.db` by default, or
 * PostgreSQL from the URL in the environment variable named by url_env).
 */
export async function openProjectDatabase(
  root: string,
  manifest: Manifest,
  database: DatabaseInput | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<OpenedDatabase> {
  if (database !== undefined) {
    if (isDialect(database)) {
      const db = kyselyFromDialect(database);
      return { db, backend: detectBackend(db), close: () => db.destroy() };
    }
    const db = database as Kysely<LedgerSchema>;
    return { db, backend: detectBackend(db), close: async () => undefined };
  }
  if (manifest.storage.backend === "postgres") {
    const name = manifest.storage.url_env as string;
    const url = env[name];
    if (url === undefined || url === "") {
      throw new LedgerError(
        "InvalidInput",
        `The manifest stores this ledger in PostgreSQL, but the environment variable ${name} is not set; export ${name} with the database URL.`,
        { url_env: name },
      );
    }
    return openPostgresDatabase(url, { schema: manifest.storage.schema });
  }
  return openSqliteDatabase(join(root, AWR_DIR, STATE_DB));
}

export type { Backend };
