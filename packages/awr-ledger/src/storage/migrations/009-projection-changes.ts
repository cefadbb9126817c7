import type { Migration } from "../migration.js";

/** How many entity updates projection_changes keeps; a reader further behind reloads. */
export const PROJECTION_CHANGE_WINDOW = 1024;

// The projection's own clock (docs/design/read-caching.md), kept by triggers so every writer of
// entities and dependencies (reindex, work transitions, anything later) moves it in the same
// transaction as its change, without knowing about it:
// - project_state.projection_generation grows with every row changed in entities or
//   dependencies, and with every change to a source's note (migration 006's sources.note, the
//   ledger's own `current:` block that status shows), and only then: a reader whose cached
//   projection has the current generation has the current projection, whatever else (events,
//   claims, sessions, a transition's new source fingerprint) was written meanwhile;
// - project_state.projection_shape is the generation of the last change that moved, added or
//   removed an entity, touched a dependency or changed a source note (a reindex): a reader
//   behind it reloads;
// - projection_changes lists, per generation, the entity an in-place update changed (a work
//   transition's status and attributes), so a reader behind only by updates re-reads those rows.
//   It keeps the newest PROJECTION_CHANGE_WINDOW entries;
// - project_state.evidence_generation grows with every change to recorded evidence (what search
//   ranks besides the projection), and only then.
// Workstreams (migration 007) are not part of the projection: their reads query their tables.
const sqliteStatements = [
  "ALTER TABLE project_state ADD COLUMN projection_generation INTEGER NOT NULL DEFAULT 0",
  "ALTER TABLE project_state ADD COLUMN projection_shape INTEGER NOT NULL DEFAULT 0",
  "ALTER TABLE project_state ADD COLUMN evidence_generation INTEGER NOT NULL DEFAULT 0",
  ...["INSERT", "UPDATE", "DELETE"].map(
    (op) => `CREATE TRIGGER evidence_generation_${op.toLowerCase()} AFTER ${op} ON evidence BEGIN
       UPDATE project_state SET evidence_generation = evidence_generation + 1; END`,
  ),
  `CREATE TABLE projection_changes (
     generation INTEGER PRIMARY KEY,
     entity_key TEXT NOT NULL)`,
  ...["INSERT", "DELETE"].map(
    (op) => `CREATE TRIGGER entities_projection_${op.toLowerCase()} AFTER ${op} ON entities BEGIN
       UPDATE project_state SET projection_generation = projection_generation + 1,
                                projection_shape = projection_generation + 1; END`,
  ),
  ...["INSERT", "UPDATE", "DELETE"].map(
    (op) => `CREATE TRIGGER dependencies_projection_${op.toLowerCase()} AFTER ${op} ON dependencies
     BEGIN
       UPDATE project_state SET projection_generation = projection_generation + 1,
                                projection_shape = projection_generation + 1; END`,
  ),
  ...[
    ["insert", "AFTER INSERT ON sources WHEN new.note IS NOT NULL"],
    ["delete", "AFTER DELETE ON sources WHEN old.note IS NOT NULL"],
    [
      "update",
      "AFTER UPDATE OF path, note ON sources WHEN old.note IS NOT new.note OR old.path IS NOT new.path",
    ],
  ].map(
    ([op, when]) => `CREATE TRIGGER sources_projection_${op} ${when} BEGIN
       UPDATE project_state SET projection_generation = projection_generation + 1,
                                projection_shape = projection_generation + 1; END`,
  ),
  `CREATE TRIGGER entities_projection_update AFTER UPDATE ON entities BEGIN
     UPDATE project_state SET projection_generation = projection_generation + 1,
       projection_shape = CASE
         WHEN old.key = new.key AND old.kind = new.kind AND old.source_path = new.source_path
          AND old.ordinal = new.ordinal THEN projection_shape
         ELSE projection_generation + 1 END;
     INSERT INTO projection_changes (generation, entity_key)
       SELECT projection_generation, new.key FROM project_state;
     DELETE FROM projection_changes WHERE generation <=
       (SELECT projection_generation FROM project_state) - ${PROJECTION_CHANGE_WINDOW}; END`,
];

/** An entity's searchable body, exactly as migration 006 indexes it (`row` is "old." or "new."). */
const entityBody = (row: string) =>
  `coalesce(${row}summary, '') || ' ' || ${row}body || ' ' || coalesce(json_extract(${row}attributes, '$.next_action'), '')`;
/** An entity's one trigram text, exactly as migration 006 indexes it. */
const entityText = (row: string) =>
  `${row}key || char(10) || ${row}title || char(10) || ${entityBody(row)}`;

// SQLite search upkeep per write, same search results (the tables and texts are migration 006's:
// search_fts with the next action in an entity's body, search_trigram with one text per record):
// - an entity's or evidence record's search rows are rewritten only when a value they index
//   changes. A work transition sets status and attributes; its rows are rewritten only when the
//   next action changed (the one attribute indexed), never for a status change alone (the
//   DELETE from search_fts, which cannot use an index on the UNINDEXED ref column, scanned
//   every record). `UPDATE OF` skips updates that set no indexed column at all; `WHEN` compares
//   the indexed values themselves.
const sqliteRecordUpkeep = [
  "DROP TRIGGER entities_search_update",
  `CREATE TRIGGER entities_search_update
     AFTER UPDATE OF kind, key, title, summary, body, attributes ON entities
     WHEN old.kind IS NOT new.kind OR old.key IS NOT new.key OR old.title IS NOT new.title
       OR (${entityBody("old.")}) IS NOT (${entityBody("new.")})
   BEGIN
     DELETE FROM search_fts WHERE doc_kind = old.kind AND ref = old.key;
     DELETE FROM search_trigram WHERE doc_kind = old.kind AND ref = old.key;
     INSERT INTO search_fts (doc_kind, ref, title, body) VALUES (new.kind, new.key, new.title, ${entityBody("new.")});
     INSERT INTO search_trigram (doc_kind, ref, text) VALUES (new.kind, new.key, ${entityText("new.")}); END`,
  "DROP TRIGGER evidence_search_update",
  `CREATE TRIGGER evidence_search_update AFTER UPDATE OF external_key, summary ON evidence
     WHEN old.external_key IS NOT new.external_key OR old.summary IS NOT new.summary
   BEGIN
     DELETE FROM search_fts WHERE doc_kind = 'evidence' AND ref = old.external_key;
     DELETE FROM search_trigram WHERE doc_kind = 'evidence' AND ref = old.external_key;
     INSERT INTO search_fts (doc_kind, ref, title, body) VALUES ('evidence', new.external_key, new.external_key, new.summary);
     INSERT INTO search_trigram (doc_kind, ref, text) VALUES ('evidence', new.external_key, new.external_key || char(10) || new.summary); END`,
];

/**
 * How many of the newest events search looks at first (storage/sqlite/sqlite-search.ts,
 * storage/postgres/postgres-search.ts; the ledger README says what it means for results). Supersedes
 * migration 005's 25,000: a prefix term is expanded over the window on every search after a
 * write, and these are about 1,400 journaled writes.
 */
export const EVENT_SEARCH_WINDOW = 4096;

// SQLite event search, rebuilt (005's tables held a copy of every event's text and its size):
// - event_search_fts indexes every event with the events table as its external content
//   (content_rowid seq; events are append-only, so the index never goes stale) and no column
//   sizes (bm25 then measures the few rows it scores): a write adds index entries only;
// - event_search_recent holds the newest EVENT_SEARCH_WINDOW to EVENT_SEARCH_WINDOW + 255
//   events (its own content, so rows can be deleted): every 256th event ages out the oldest in
//   one batch and merges the table into one segment (it is small, and an unmerged table of
//   deleted rows is what made prefix terms slow). It stays a suffix of the event log, which is
//   all storage/sqlite/sqlite-search.ts relies on.
const EVENT_TABLE = (name: string, content: string) =>
  `CREATE VIRTUAL TABLE ${name} USING fts5(id UNINDEXED, type, summary, ${content}columnsize = 0,
     tokenize = 'porter unicode61')`;
const sqliteEventSearch = [
  "DROP TRIGGER events_search_insert",
  "DROP TABLE event_search_fts",
  "DROP TABLE event_search_recent",
  EVENT_TABLE("event_search_fts", "content = 'events', content_rowid = 'seq', "),
  "INSERT INTO event_search_fts (event_search_fts) VALUES ('rebuild')",
  EVENT_TABLE("event_search_recent", ""),
  `INSERT INTO event_search_recent (rowid, id, type, summary)
     SELECT seq, id, type, summary FROM events
      WHERE seq > (SELECT coalesce(max(seq), 0) FROM events) - ${EVENT_SEARCH_WINDOW}`,
  `CREATE TRIGGER events_search_insert AFTER INSERT ON events BEGIN
     INSERT INTO event_search_fts (rowid, id, type, summary)
     VALUES (new.seq, new.id, new.type, new.summary);
     INSERT INTO event_search_recent (rowid, id, type, summary)
     VALUES (new.seq, new.id, new.type, new.summary); END`,
  `CREATE TRIGGER events_search_age AFTER INSERT ON events WHEN new.seq % 256 = 0 BEGIN
     DELETE FROM event_search_recent WHERE rowid <= new.seq - ${EVENT_SEARCH_WINDOW};
     INSERT INTO event_search_recent (event_search_recent) VALUES ('optimize'); END`,
];

// PostgreSQL: the same clock; structural changes bump it once per statement (a source note, once
// per changed row).
const postgresStatements = [
  "ALTER TABLE project_state ADD COLUMN projection_generation BIGINT NOT NULL DEFAULT 0",
  "ALTER TABLE project_state ADD COLUMN projection_shape BIGINT NOT NULL DEFAULT 0",
  "ALTER TABLE project_state ADD COLUMN evidence_generation BIGINT NOT NULL DEFAULT 0",
  `CREATE FUNCTION awr_evidence_changed() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       UPDATE project_state SET evidence_generation = evidence_generation + 1;
       RETURN NULL;
     END $$`,
  `CREATE TRIGGER evidence_generation AFTER INSERT OR UPDATE OR DELETE ON evidence
     FOR EACH STATEMENT EXECUTE FUNCTION awr_evidence_changed()`,
  `CREATE TABLE projection_changes (
     generation BIGINT PRIMARY KEY,
     entity_key TEXT NOT NULL)`,
  `CREATE FUNCTION awr_projection_reshaped() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       UPDATE project_state SET projection_generation = projection_generation + 1,
                                projection_shape = projection_generation + 1;
       RETURN NULL;
     END $$`,
  `CREATE TRIGGER entities_projection_shape AFTER INSERT OR DELETE ON entities
     FOR EACH STATEMENT EXECUTE FUNCTION awr_projection_reshaped()`,
  `CREATE TRIGGER dependencies_projection_shape AFTER INSERT OR UPDATE OR DELETE ON dependencies
     FOR EACH STATEMENT EXECUTE FUNCTION awr_projection_reshaped()`,
  ...[
    ["insert", "AFTER INSERT ON sources FOR EACH ROW WHEN (NEW.note IS NOT NULL)"],
    ["delete", "AFTER DELETE ON sources FOR EACH ROW WHEN (OLD.note IS NOT NULL)"],
    [
      "update",
      `AFTER UPDATE OF path, note ON sources FOR EACH ROW
         WHEN (OLD.note IS DISTINCT FROM NEW.note OR OLD.path IS DISTINCT FROM NEW.path)`,
    ],
  ].map(
    ([op, when]) =>
      `CREATE TRIGGER sources_projection_${op} ${when} EXECUTE FUNCTION awr_projection_reshaped()`,
  ),
  `CREATE FUNCTION awr_projection_entity_updated() RETURNS trigger LANGUAGE plpgsql AS $$
     DECLARE g BIGINT;
     BEGIN
       UPDATE project_state SET projection_generation = projection_generation + 1,
         projection_shape = CASE
           WHEN (OLD.key, OLD.kind, OLD.source_path, OLD.ordinal)
                = (NEW.key, NEW.kind, NEW.source_path, NEW.ordinal) THEN projection_shape
           ELSE projection_generation + 1 END
         RETURNING projection_generation INTO g;
       IF g IS NOT NULL THEN
         INSERT INTO projection_changes (generation, entity_key) VALUES (g, NEW.key);
         DELETE FROM projection_changes WHERE generation <= g - ${PROJECTION_CHANGE_WINDOW};
       END IF;
       RETURN NULL;
     END $$`,
  `CREATE TRIGGER entities_projection_update AFTER UPDATE ON entities
     FOR EACH ROW EXECUTE FUNCTION awr_projection_entity_updated()`,
];

export const migration009ProjectionChanges: Migration = {
  version: 9,
  name: "read clock; search rows rewritten only when their text changes; event search window",
  statements: {
    sqlite: [...sqliteStatements, ...sqliteRecordUpkeep, ...sqliteEventSearch],
    postgres: postgresStatements,
  },
};
