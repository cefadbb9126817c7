import type { Migration } from "../migration.js";

// Reads stay bounded on large ledgers: a work item's recent events (`WHERE work = ? ORDER BY seq
// DESC LIMIT n`, context compile) walk the (work, seq) index backwards and stop after n rows
// instead of sorting every event of the item. The new index supersedes events_work (its prefix).
const statements = ["CREATE INDEX events_work_seq ON events (work, seq)", "DROP INDEX events_work"];

export const migration004ReadIndexes: Migration = {
  version: 4,
  name: "read indexes: events by (work, seq)",
  statements: { sqlite: statements, postgres: statements },
};
