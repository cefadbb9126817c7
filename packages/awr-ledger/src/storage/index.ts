export { appendEvent, type NewEvent } from "./events.js";
export { LedgerStore, type LedgerStoreOptions, type LedgerTx } from "./ledger-store.js";
export type { Backend, Migration } from "./migration.js";
export { EVENT_SEARCH_WINDOW } from "./migrations/009-projection-changes.js";
export { MIGRATIONS } from "./migrations/index.js";
export { latestSchemaVersion, type MigrationResult, migrateToLatest } from "./migrator.js";
export {
  detectBackend,
  isOwnSqliteDatabase,
  type OpenedDatabase,
  openPostgresDatabase,
  openSqliteDatabase,
  type PostgresOptions,
} from "./open-database.js";
export { DEFAULT_LEASE_MS, type LockOptions } from "./project-lock.js";
export { type ReadClock, readClock } from "./read-clock.js";
export { checkExpectedRevision, readRevision, spendRevision } from "./revision.js";
export * from "./schema.js";
export {
  DEFAULT_STATEMENT_CACHE_SIZE,
  type PreparingDatabase,
  withStatementCache,
} from "./sqlite-statement-cache.js";
export { inTransaction } from "./transaction.js";
