import type { Migration } from "../migration.js";

// Work branches as runtime state (docs/design/work-branches.md, "Data model"): one row per
// branch (main has none and is `branch = NULL` everywhere), the project's selected default, and
// the branch every session, claim, checkpoint, event and evidence record was written on (set once
// at insert). Existing rows become main without a rewrite. The one-active-claim index becomes
// one active claim per work item and branch; `''` stands for main in the index only (it can never
// be a ULID). Same statements on both backends.
const statements = [
  `CREATE TABLE branches (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL UNIQUE,
     parent_branch_id TEXT,
     git_ref TEXT,
     fork_revision INTEGER NOT NULL,
     status TEXT NOT NULL,
     revision INTEGER NOT NULL,
     created_revision INTEGER NOT NULL,
     created_at TEXT NOT NULL,
     closed_revision INTEGER,
     closed_at TEXT)`,
  "ALTER TABLE project_state ADD COLUMN current_branch_id TEXT",
  "ALTER TABLE sessions ADD COLUMN branch TEXT",
  "ALTER TABLE claims ADD COLUMN branch TEXT",
  "ALTER TABLE checkpoints ADD COLUMN branch TEXT",
  "ALTER TABLE events ADD COLUMN branch TEXT",
  "ALTER TABLE evidence ADD COLUMN branch TEXT",
  "DROP INDEX claims_one_active",
  `CREATE UNIQUE INDEX claims_one_active ON claims (work, COALESCE(branch, ''))
     WHERE status = 'active'`,
  "CREATE INDEX sessions_work_branch ON sessions (work, branch, status)",
  "CREATE INDEX events_branch_seq ON events (branch, seq)",
  "CREATE INDEX events_session_seq ON events (session, seq)",
];

export const migration010WorkBranches: Migration = {
  version: 10,
  name: "work branches: branches, the selected default, the branch of runtime rows",
  statements: { sqlite: statements, postgres: statements },
};
