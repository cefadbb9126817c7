import type { Migration } from "../migration.js";

// The reviewed source-change journal (awr_change_apply / status / recover): one row per request
// identity, written in phases (prepared, source_written, then completed or no_change; stopped
// when the source was edited outside before the write). Same statements on both backends.
const statements = [
  `CREATE TABLE source_changes (
     request_key TEXT PRIMARY KEY,
     project_id TEXT NOT NULL,
     client TEXT NOT NULL,
     change_kind TEXT NOT NULL,
     request_id TEXT NOT NULL,
     request_hash TEXT NOT NULL,
     preview_fingerprint TEXT NOT NULL,
     phase TEXT NOT NULL,
     source_path TEXT,
     before_fingerprint TEXT,
     after_fingerprint TEXT,
     plan TEXT NOT NULL,
     outcome TEXT,
     base_revision INTEGER NOT NULL,
     project_revision INTEGER NOT NULL,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL)`,
  "CREATE INDEX source_changes_client ON source_changes (project_id, client, change_kind)",
];

export const migration014SourceChanges: Migration = {
  version: 14,
  name: "source changes: the journal of reviewed source edits",
  statements: { sqlite: statements, postgres: statements },
};
