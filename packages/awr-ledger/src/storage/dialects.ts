import type { Dialect, Kysely } from "kysely";
import { KyselyClass, PostgresAdapter } from "../internal/kysely.js";
import type { Backend, OpenedDatabase, StorageConfig, StorageDialect } from "./dialect.js";
import { openPostgresFromEnvironment } from "./postgres/open-postgres.js";
import { POSTGRES_DIALECT } from "./postgres/postgres-dialect.js";
import type { LedgerSchema } from "./schema.js";
import { openSqliteDatabase, SQLITE_DIALECT } from "./sqlite/sqlite-dialect.js";

/** Every storage dialect, by the manifest's `[storage] backend` name. */
export const STORAGE_DIALECTS: Readonly<Record<Backend, StorageDialect>> = {
  sqlite: SQLITE_DIALECT,
  postgres: POSTGRES_DIALECT,
};

/** The dialect the manifest's `[storage] backend` names. */
export function storageDialect(name: Backend): StorageDialect {
  return STORAGE_DIALECTS[name];
}

/**
 * Opens the database a manifest's `[storage]` names: the SQLite `file` (the project's
 * `.awr/state.db`), or the PostgreSQL server whose URL is in the environment variable `url_env`.
 */
export function openConfiguredDatabase(
  storage: StorageConfig,
  file: string,
  env: NodeJS.ProcessEnv,
): Promise<OpenedDatabase> {
  return storageDialect(storage.backend).choose({
    sqlite: () => openSqliteDatabase(file),
    postgres: () => openPostgresFromEnvironment(storage, env),
  })();
}

/**
 * The dialect of a caller-provided Kysely instance (or kysely Dialect): PostgreSQL when its
 * adapter is (or extends) kysely's PostgresAdapter, else SQLite. The caller's instance may come
 * from another copy of kysely (its ES module build; the ledger loads the CommonJS one), whose
 * PostgresAdapter is a different class object, so a class named PostgresAdapter anywhere in the
 * adapter's prototype chain counts as well.
 */
// biome-ignore lint/suspicious/noExplicitAny: any schema.
export function detectDialect(db: Kysely<any>): StorageDialect {
  const adapter = db.getExecutor().adapter;
  if (adapter instanceof PostgresAdapter) return POSTGRES_DIALECT;
  for (
    let proto = Object.getPrototypeOf(adapter);
    proto !== null;
    proto = Object.getPrototypeOf(proto)
  ) {
    if ((proto as { constructor?: { name?: unknown } }).constructor?.name === "PostgresAdapter") {
      return POSTGRES_DIALECT;
    }
  }
  return SQLITE_DIALECT;
}

export function kyselyFromDialect(dialect: Dialect): Kysely<LedgerSchema> {
  return new KyselyClass<LedgerSchema>({ dialect });
}
