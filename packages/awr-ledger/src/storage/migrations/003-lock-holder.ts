import type { Migration } from "../migration.js";

// The SQLite project-lock lease records who holds it (pid, pid-space key, process start time) so
// a waiter on the same machine can take over at once from a holder that crashed, instead of
// waiting for the lease to expire. Nullable: rows without them (older holders) fall back to
// expiry. The columns exist on PostgreSQL too (unused there: advisory locks die with the session).
const statements = [
  "ALTER TABLE project_locks ADD COLUMN holder_pid INTEGER",
  "ALTER TABLE project_locks ADD COLUMN holder_host TEXT",
  "ALTER TABLE project_locks ADD COLUMN holder_start TEXT",
];

export const migration003LockHolder: Migration = {
  version: 3,
  name: "project lock lease: holder pid, host and start time",
  statements: { sqlite: statements, postgres: statements },
};
