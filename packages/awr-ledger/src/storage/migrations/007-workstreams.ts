import type { Migration } from "../migration.js";

// Workstreams as a reindex records them (docs/compatibility/workstreams.md): the one
// ledger that declares them (a row in workstream_catalog means the project serves workstreams;
// it never goes away), every definition ever declared (ids and keys are immutable and a
// definition is archived, never removed, so a row is never deleted by a reindex), and the owner
// of every work item.
const statements = [
  `CREATE TABLE workstream_catalog (
     source_path TEXT PRIMARY KEY,
     version INTEGER NOT NULL,
     legacy_default TEXT,
     enabled_revision INTEGER NOT NULL,
     indexed_revision INTEGER NOT NULL)`,
  `CREATE TABLE workstreams (
     id TEXT PRIMARY KEY,
     external_key TEXT NOT NULL UNIQUE,
     title TEXT NOT NULL,
     state TEXT NOT NULL,
     authority_version INTEGER NOT NULL,
     goal_keys TEXT NOT NULL,
     acceptance_contracts TEXT NOT NULL,
     line INTEGER NOT NULL,
     ordinal INTEGER NOT NULL,
     indexed_revision INTEGER NOT NULL)`,
  `CREATE TABLE workstream_ownership (
     work TEXT PRIMARY KEY,
     workstream_id TEXT NOT NULL)`,
  "CREATE INDEX workstream_ownership_stream ON workstream_ownership (workstream_id, work)",
];

export const migration007Workstreams: Migration = {
  version: 7,
  name: "workstreams: the declaring ledger, definitions and work ownership",
  statements: { sqlite: statements, postgres: statements },
};
