import type { Migration } from "../migration.js";

// Search leaves out the request journal's receipts (mcp.operation_started, _finished and
// _recovered: docs/design/journal-three-steps.md, "What search sees"). They record the steps of
// a journaled write, not work, and two of every journaled write's three events are receipts, so
// indexing them cost each write two thirds of its full-text pages (each FTS5 insert in its own
// transaction writes a new segment, its structure record and an index entry, in both event
// tables). SQLite: the insert trigger skips them, and event_search_fts is rebuilt without them
// (same definition as migration 009; the rows are written directly because 'rebuild' would read
// every event back). event_search_recent keeps its own content, so its receipts are deleted.
// PostgreSQL's events carry a generated search vector; its search query leaves receipts out.
// The type names are written out: a released step never changes with the code.
const RECEIPTS = "('mcp.operation_started', 'mcp.operation_finished', 'mcp.operation_recovered')";

const sqliteStatements = [
  "DROP TRIGGER events_search_insert",
  "DROP TABLE event_search_fts",
  `CREATE VIRTUAL TABLE event_search_fts USING fts5(id UNINDEXED, type, summary,
     content = 'events', content_rowid = 'seq', columnsize = 0, tokenize = 'porter unicode61')`,
  `INSERT INTO event_search_fts (rowid, id, type, summary)
     SELECT seq, id, type, summary FROM events WHERE type NOT IN ${RECEIPTS} ORDER BY seq`,
  `DELETE FROM event_search_recent WHERE type IN ${RECEIPTS}`,
  `CREATE TRIGGER events_search_insert AFTER INSERT ON events
     WHEN new.type NOT IN ${RECEIPTS} BEGIN
     INSERT INTO event_search_fts (rowid, id, type, summary)
     VALUES (new.seq, new.id, new.type, new.summary);
     INSERT INTO event_search_recent (rowid, id, type, summary)
     VALUES (new.seq, new.id, new.type, new.summary); END`,
];

export const migration011SearchSkipsJournalReceipts: Migration = {
  version: 11,
  name: "search leaves out the request journal's receipts",
  statements: { sqlite: sqliteStatements, postgres: [] },
};
