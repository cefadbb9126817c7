import type { Migration } from "../migration.js";

const common = [
  `CREATE TABLE project_state (
     project_id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     revision INTEGER NOT NULL DEFAULT 0 CHECK (revision >= 0),
     manifest_fingerprint TEXT,
     created_at TEXT NOT NULL)`,
  `CREATE TABLE project_locks (
     project_id TEXT PRIMARY KEY,
     holder TEXT NOT NULL,
     expires_at BIGINT NOT NULL)`,
  `CREATE TABLE sources (
     path TEXT PRIMARY KEY,
     domain TEXT NOT NULL,
     role TEXT NOT NULL,
     adapter TEXT NOT NULL,
     fingerprint TEXT NOT NULL,
     size BIGINT NOT NULL,
     mtime_ms DOUBLE PRECISION NOT NULL,
     indexed_revision INTEGER NOT NULL,
     entity_count INTEGER NOT NULL)`,
  `CREATE TABLE entities (
     id TEXT PRIMARY KEY,
     kind TEXT NOT NULL,
     key TEXT NOT NULL UNIQUE,
     title TEXT NOT NULL,
     status TEXT NOT NULL,
     raw_status TEXT,
     summary TEXT,
     body TEXT NOT NULL,
     attributes TEXT NOT NULL,
     source_path TEXT NOT NULL,
     line_start INTEGER NOT NULL,
     line_end INTEGER NOT NULL,
     ordinal INTEGER NOT NULL,
     indexed_revision INTEGER NOT NULL)`,
  "CREATE INDEX entities_kind_status ON entities (kind, status)",
  "CREATE INDEX entities_source ON entities (source_path)",
  `CREATE TABLE dependencies (
     work_key TEXT NOT NULL,
     depends_on TEXT NOT NULL,
     required INTEGER NOT NULL,
     source_path TEXT NOT NULL,
     PRIMARY KEY (work_key, depends_on))`,
  "CREATE INDEX dependencies_target ON dependencies (depends_on)",
  `CREATE TABLE events (
     id TEXT PRIMARY KEY,
     seq INTEGER NOT NULL UNIQUE,
     revision INTEGER NOT NULL,
     type TEXT NOT NULL,
     work TEXT,
     session TEXT,
     client TEXT,
     operation_id TEXT,
     summary TEXT,
     payload TEXT NOT NULL,
     time TEXT NOT NULL)`,
  "CREATE INDEX events_revision ON events (revision)",
  "CREATE INDEX events_work ON events (work)",
  "CREATE INDEX events_operation ON events (operation_id)",
  `CREATE TABLE evidence (
     id TEXT PRIMARY KEY,
     external_key TEXT NOT NULL UNIQUE,
     evidence_type TEXT NOT NULL,
     level TEXT NOT NULL,
     summary TEXT NOT NULL,
     locator TEXT,
     scope TEXT NOT NULL,
     sha256 TEXT,
     command TEXT,
     verified_at TEXT,
     work TEXT,
     session TEXT,
     client TEXT,
     revision INTEGER NOT NULL,
     recorded_at TEXT NOT NULL)`,
  "CREATE INDEX evidence_work ON evidence (work)",
];

// SQLite: FTS5 table kept in step by triggers, so writers (including the runtime's evidence and
// event writers) never maintain it by hand. Events contribute only their type and summary.
const sqliteOnly = [
  `CREATE TRIGGER events_immutable_update BEFORE UPDATE ON events
     BEGIN SELECT RAISE(ABORT, 'events are append-only: UPDATE refused'); END`,
  `CREATE TRIGGER events_immutable_delete BEFORE DELETE ON events
     BEGIN SELECT RAISE(ABORT, 'events are append-only: DELETE refused'); END`,
  `CREATE VIRTUAL TABLE search_fts USING fts5(
     doc_kind UNINDEXED, ref UNINDEXED, title, body, tokenize = 'porter unicode61')`,
  `CREATE TRIGGER entities_fts_insert AFTER INSERT ON entities BEGIN
     INSERT INTO search_fts (doc_kind, ref, title, body)
     VALUES (new.kind, new.key, new.title, coalesce(new.summary, '') || ' ' || new.body); END`,
  `CREATE TRIGGER entities_fts_delete AFTER DELETE ON entities BEGIN
     DELETE FROM search_fts WHERE doc_kind = old.kind AND ref = old.key; END`,
  `CREATE TRIGGER entities_fts_update AFTER UPDATE ON entities BEGIN
     DELETE FROM search_fts WHERE doc_kind = old.kind AND ref = old.key;
     INSERT INTO search_fts (doc_kind, ref, title, body)
     VALUES (new.kind, new.key, new.title, coalesce(new.summary, '') || ' ' || new.body); END`,
  `CREATE TRIGGER evidence_fts_insert AFTER INSERT ON evidence BEGIN
     INSERT INTO search_fts (doc_kind, ref, title, body)
     VALUES ('evidence', new.external_key, new.external_key, new.summary); END`,
  `CREATE TRIGGER evidence_fts_delete AFTER DELETE ON evidence BEGIN
     DELETE FROM search_fts WHERE doc_kind = 'evidence' AND ref = old.external_key; END`,
  `CREATE TRIGGER evidence_fts_update AFTER UPDATE ON evidence BEGIN
     DELETE FROM search_fts WHERE doc_kind = 'evidence' AND ref = old.external_key;
     INSERT INTO search_fts (doc_kind, ref, title, body)
     VALUES ('evidence', new.external_key, new.external_key, new.summary); END`,
  `CREATE TRIGGER events_fts_insert AFTER INSERT ON events BEGIN
     INSERT INTO search_fts (doc_kind, ref, title, body)
     VALUES ('event', new.id, new.type, coalesce(new.summary, '')); END`,
];

// PostgreSQL: a stored tsvector per searchable table with a GIN index; the event vector covers
// only type and summary.
const postgresOnly = [
  `CREATE FUNCTION awr_refuse_event_change() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN RAISE EXCEPTION 'events are append-only: % refused', TG_OP; END $$`,
  `CREATE TRIGGER events_immutable BEFORE UPDATE OR DELETE ON events
     FOR EACH ROW EXECUTE FUNCTION awr_refuse_event_change()`,
  `CREATE TRIGGER events_immutable_truncate BEFORE TRUNCATE ON events
     FOR EACH STATEMENT EXECUTE FUNCTION awr_refuse_event_change()`,
  `ALTER TABLE entities ADD COLUMN search_tsv tsvector GENERATED ALWAYS AS (
     setweight(to_tsvector('english', title), 'A') ||
     setweight(to_tsvector('english', coalesce(summary, '') || ' ' || body), 'B')) STORED`,
  "CREATE INDEX entities_search ON entities USING GIN (search_tsv)",
  `ALTER TABLE evidence ADD COLUMN search_tsv tsvector GENERATED ALWAYS AS (
     setweight(to_tsvector('english', external_key), 'A') ||
     setweight(to_tsvector('english', summary), 'B')) STORED`,
  "CREATE INDEX evidence_search ON evidence USING GIN (search_tsv)",
  `ALTER TABLE events ADD COLUMN search_tsv tsvector GENERATED ALWAYS AS (
     setweight(to_tsvector('english', replace(type, '.', ' ')), 'A') ||
     setweight(to_tsvector('english', coalesce(summary, '')), 'B')) STORED`,
  "CREATE INDEX events_search ON events USING GIN (search_tsv)",
];

export const migration001Base: Migration = {
  version: 1,
  name: "base: project state, sources, projection, events, evidence, search",
  statements: { sqlite: [...common, ...sqliteOnly], postgres: [...common, ...postgresOnly] },
};
