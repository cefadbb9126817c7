import type { Kysely } from "kysely";
import { sql } from "../../internal/kysely.js";
import type { Backend, Migration } from "../migration.js";

// biome-ignore lint/suspicious/noExplicitAny: schema-less during migration.
async function run(db: Kysely<any>, statements: readonly string[]): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

// Runtime state (AWR.md section 3) and the request journal (section 4). The partial unique
// indexes are the database's own guard for the "at most one" rules: one active session per
// (client, conversation) binding, one active claim per work item, one pending wait per session,
// one journal entry per (client, request_id).
const statements = [
  `CREATE TABLE sessions (
     id TEXT PRIMARY KEY,
     client TEXT NOT NULL,
     conversation TEXT NOT NULL,
     work TEXT,
     agent TEXT NOT NULL,
     provider TEXT NOT NULL,
     model TEXT NOT NULL,
     status TEXT NOT NULL,
     predecessor TEXT,
     successor TEXT,
     summary TEXT,
     last_checkpoint TEXT,
     start_revision INTEGER NOT NULL,
     end_revision INTEGER,
     started_at TEXT NOT NULL,
     ended_at TEXT)`,
  `CREATE UNIQUE INDEX sessions_active_binding ON sessions (client, conversation)
     WHERE status = 'active'`,
  "CREATE INDEX sessions_client_revision ON sessions (client, start_revision)",
  `CREATE TABLE claims (
     id TEXT PRIMARY KEY,
     work TEXT NOT NULL,
     session TEXT NOT NULL,
     client TEXT NOT NULL,
     status TEXT NOT NULL,
     ttl_ms BIGINT,
     expires_at BIGINT,
     acquired_revision INTEGER NOT NULL,
     ended_revision INTEGER,
     acquired_at TEXT NOT NULL,
     ended_at TEXT)`,
  "CREATE UNIQUE INDEX claims_one_active ON claims (work) WHERE status = 'active'",
  "CREATE INDEX claims_session ON claims (session, status)",
  `CREATE TABLE checkpoints (
     id TEXT PRIMARY KEY,
     session TEXT NOT NULL,
     revision INTEGER NOT NULL,
     context_hash TEXT,
     digest TEXT NOT NULL,
     next_action TEXT,
     open_loops TEXT NOT NULL,
     changed_entities TEXT NOT NULL,
     created_at TEXT NOT NULL)`,
  "CREATE INDEX checkpoints_session ON checkpoints (session, revision)",
  `CREATE TABLE waits (
     id TEXT PRIMARY KEY,
     session TEXT NOT NULL,
     checkpoint TEXT,
     question TEXT NOT NULL,
     status TEXT NOT NULL,
     answer TEXT,
     created_revision INTEGER NOT NULL,
     replied_revision INTEGER,
     created_at TEXT NOT NULL,
     replied_at TEXT)`,
  "CREATE UNIQUE INDEX waits_one_pending ON waits (session) WHERE status = 'waiting_user'",
  `CREATE TABLE operations (
     id TEXT PRIMARY KEY,
     client TEXT NOT NULL,
     request_id TEXT NOT NULL,
     tool TEXT NOT NULL,
     fingerprint TEXT NOT NULL,
     arguments TEXT NOT NULL,
     status TEXT NOT NULL,
     write_outcome TEXT,
     result TEXT,
     error TEXT,
     recovered INTEGER NOT NULL DEFAULT 0,
     started_revision INTEGER,
     finished_revision INTEGER,
     started_at TEXT NOT NULL,
     finished_at TEXT,
     UNIQUE (client, request_id))`,
  "CREATE INDEX operations_client_status ON operations (client, status, started_at)",
];

export const migration002Runtime: Migration = {
  version: 2,
  name: "runtime: sessions, claims, checkpoints, waits, request journal",
  async up(db, _backend: Backend) {
    await run(db, statements);
  },
};
