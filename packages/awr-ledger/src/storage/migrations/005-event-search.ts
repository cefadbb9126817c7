import type { Migration } from "../migration.js";

/** How many of the newest events event_search_recent holds (storage/sqlite/sqlite-search.ts relies on it). */
export const RECENT_EVENT_WINDOW = 25_000;

// SQLite: events move out of search_fts into their own FTS5 tables, both keyed by the event's
// seq (rowid), so ranking work, entities and evidence no longer walks the (much larger) event
// postings, and search reads the newest matching events with `ORDER BY rowid DESC LIMIT n`:
// - event_search_fts holds every event;
// - event_search_recent holds only the newest RECENT_EVENT_WINDOW, so a prefix term over common
//   words expands over a few thousand postings instead of hundreds of thousands (FTS5 builds a
//   prefix term's whole posting list before it can read it backwards).
// Existing events are copied over; the insert trigger now feeds both tables and ages rows out of
// the recent one. PostgreSQL keeps its per-table tsvector + GIN indexes (001): nothing to do.
const sqliteStatements = [
  `CREATE VIRTUAL TABLE event_search_fts USING fts5(
     ref UNINDEXED, title, body, tokenize = 'porter unicode61')`,
  `CREATE VIRTUAL TABLE event_search_recent USING fts5(
     ref UNINDEXED, title, body, tokenize = 'porter unicode61')`,
  `INSERT INTO event_search_fts (rowid, ref, title, body)
     SELECT seq, id, type, coalesce(summary, '') FROM events`,
  `INSERT INTO event_search_recent (rowid, ref, title, body)
     SELECT seq, id, type, coalesce(summary, '') FROM events
      WHERE seq > (SELECT coalesce(max(seq), 0) FROM events) - ${RECENT_EVENT_WINDOW}`,
  "DROP TRIGGER events_fts_insert",
  // search_fts is rebuilt from entities and evidence rather than deleting the event rows one by
  // one (a large ledger holds far more events than records). Same definition as in 001; the
  // entity and evidence triggers address it by name and keep working.
  "DROP TABLE search_fts",
  `CREATE VIRTUAL TABLE search_fts USING fts5(
     doc_kind UNINDEXED, ref UNINDEXED, title, body, tokenize = 'porter unicode61')`,
  `INSERT INTO search_fts (doc_kind, ref, title, body)
     SELECT kind, key, title, coalesce(summary, '') || ' ' || body FROM entities ORDER BY rowid`,
  `INSERT INTO search_fts (doc_kind, ref, title, body)
     SELECT 'evidence', external_key, external_key, summary FROM evidence ORDER BY rowid`,
  `CREATE TRIGGER events_search_insert AFTER INSERT ON events BEGIN
     INSERT INTO event_search_fts (rowid, ref, title, body)
     VALUES (new.seq, new.id, new.type, coalesce(new.summary, ''));
     INSERT INTO event_search_recent (rowid, ref, title, body)
     VALUES (new.seq, new.id, new.type, coalesce(new.summary, ''));
     DELETE FROM event_search_recent WHERE rowid <= new.seq - ${RECENT_EVENT_WINDOW}; END`,
];

export const migration005EventSearch: Migration = {
  version: 5,
  name: "event search: separate newest-first FTS tables for events (SQLite)",
  statements: { sqlite: sqliteStatements, postgres: [] },
};
