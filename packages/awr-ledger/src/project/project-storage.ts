import { join } from "node:path";
import type { Dialect, Kysely } from "kysely";
import type { Manifest } from "../sources/manifest.js";
import { AWR_DIR } from "../sources/read-sources.js";
import type { OpenedDatabase } from "../storage/dialect.js";
import {
  detectDialect,
  kyselyFromDialect,
  openConfiguredDatabase,
  storageDialect,
} from "../storage/dialects.js";
import type { LedgerSchema } from "../storage/schema.js";

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
 * The project's own SQLite file (`<root>/.awr/state.db`) when that is where its ledger lives: no
 * caller-provided database and a manifest whose storage is a file, not a server. Undefined
 * otherwise.
 */
export function projectDatabaseFile(
  root: string,
  manifest: Manifest,
  database: DatabaseInput | undefined,
): string | undefined {
  if (database !== undefined || storageDialect(manifest.storage.backend).connectsByUrl) {
    return undefined;
  }
  return join(root, AWR_DIR, STATE_DB);
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
      return { db, dialect: detectDialect(db), close: () => db.destroy() };
    }
    const db = database as Kysely<LedgerSchema>;
    return { db, dialect: detectDialect(db), close: async () => undefined };
  }
  return openConfiguredDatabase(manifest.storage, join(root, AWR_DIR, STATE_DB), env);
}
