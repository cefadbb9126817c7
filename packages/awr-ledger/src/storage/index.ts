export type { Backend, OpenedDatabase, PerBackend, StorageDialect } from "./dialect.js";
export { detectDialect, STORAGE_DIALECTS, storageDialect } from "./dialects.js";
export { appendEvent, type NewEvent } from "./events.js";
export {
  LedgerStore,
  type LedgerStoreOptions,
  type LedgerTx,
  type WriteOptions,
} from "./ledger-store.js";
export type { Migration } from "./migration.js";
export { EVENT_SEARCH_WINDOW } from "./migrations/009-projection-changes.js";
export { MIGRATIONS } from "./migrations/index.js";
export { latestSchemaVersion, type MigrationResult, migrateToLatest } from "./migrator.js";
export { openPostgresDatabase, type PostgresOptions } from "./postgres/open-postgres.js";
export { type Param, PreparedQuery } from "./prepared-query.js";
export { DEFAULT_LEASE_MS, type LockOptions } from "./project-lock.js";
export { type ReadClock, readClock } from "./read-clock.js";
export { checkExpectedRevision, readRevision, spendRevision } from "./revision.js";
export * from "./schema.js";
export { isOwnSqliteDatabase, withHeldConnection } from "./sqlite/held-connection.js";
export { openSqliteDatabase } from "./sqlite/sqlite-dialect.js";
export {
  DEFAULT_STATEMENT_CACHE_SIZE,
  type PreparingDatabase,
  withStatementCache,
} from "./sqlite-statement-cache.js";
