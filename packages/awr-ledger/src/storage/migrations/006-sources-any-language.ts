import type { Migration } from "../migration.js";

// Sources: a row per unit. `kind` tells a markdown-directory-v1 directory (its fingerprint is
// over its file list) from a file; `note` is what a source says about itself that the
// projection does not model (a ledger's `current:` block), JSON, shown by status as such.
const common = [
  "ALTER TABLE sources ADD COLUMN kind TEXT NOT NULL DEFAULT 'file'",
  "ALTER TABLE sources ADD COLUMN note TEXT",
];

/** An entity's searchable body: summary, body and next action (`row` is "new." or ""). */
const entityBody = (row: string) =>
  `coalesce(${row}summary, '') || ' ' || ${row}body || ' ' || coalesce(json_extract(${row}attributes, '$.next_action'), '')`;
/** An entity's one trigram text: key, title and body. */
const entityText = (row: string) =>
  `${row}key || char(10) || ${row}title || char(10) || ${entityBody(row)}`;

// SQLite search in any language. search_fts (unicode61 + porter, 005) keeps word search with
// prefixes and bm25; its entity rows now include the work item's next action. search_trigram
// (FTS5's trigram tokenizer) holds the same records as one text column, so a query in a script
// written without spaces (Chinese, Japanese, Korean) finds a word anywhere inside a text:
// MATCH for a term of three or more characters, LIKE for a two-character one (FTS5 then scans
// the table, which holds one short row per record). Events stay in their 005 tables; a CJK term
// reads the newest matching events with LIKE on events (see storage/sqlite/sqlite-search.ts).
const sqlite = [
  "DROP TRIGGER entities_fts_insert",
  "DROP TRIGGER entities_fts_delete",
  "DROP TRIGGER entities_fts_update",
  "DROP TRIGGER evidence_fts_insert",
  "DROP TRIGGER evidence_fts_delete",
  "DROP TRIGGER evidence_fts_update",
  "DELETE FROM search_fts WHERE doc_kind <> 'evidence'",
  `INSERT INTO search_fts (doc_kind, ref, title, body)
     SELECT kind, key, title, ${entityBody("")} FROM entities ORDER BY rowid`,
  `CREATE VIRTUAL TABLE search_trigram USING fts5(
     doc_kind UNINDEXED, ref UNINDEXED, text, tokenize = 'trigram')`,
  `INSERT INTO search_trigram (doc_kind, ref, text)
     SELECT kind, key, ${entityText("")} FROM entities ORDER BY rowid`,
  `INSERT INTO search_trigram (doc_kind, ref, text)
     SELECT 'evidence', external_key, external_key || char(10) || summary FROM evidence ORDER BY rowid`,
  `CREATE TRIGGER entities_search_insert AFTER INSERT ON entities BEGIN
     INSERT INTO search_fts (doc_kind, ref, title, body) VALUES (new.kind, new.key, new.title, ${entityBody("new.")});
     INSERT INTO search_trigram (doc_kind, ref, text) VALUES (new.kind, new.key, ${entityText("new.")}); END`,
  `CREATE TRIGGER entities_search_delete AFTER DELETE ON entities BEGIN
     DELETE FROM search_fts WHERE doc_kind = old.kind AND ref = old.key;
     DELETE FROM search_trigram WHERE doc_kind = old.kind AND ref = old.key; END`,
  `CREATE TRIGGER entities_search_update AFTER UPDATE ON entities BEGIN
     DELETE FROM search_fts WHERE doc_kind = old.kind AND ref = old.key;
     DELETE FROM search_trigram WHERE doc_kind = old.kind AND ref = old.key;
     INSERT INTO search_fts (doc_kind, ref, title, body) VALUES (new.kind, new.key, new.title, ${entityBody("new.")});
     INSERT INTO search_trigram (doc_kind, ref, text) VALUES (new.kind, new.key, ${entityText("new.")}); END`,
  `CREATE TRIGGER evidence_search_insert AFTER INSERT ON evidence BEGIN
     INSERT INTO search_fts (doc_kind, ref, title, body) VALUES ('evidence', new.external_key, new.external_key, new.summary);
     INSERT INTO search_trigram (doc_kind, ref, text) VALUES ('evidence', new.external_key, new.external_key || char(10) || new.summary); END`,
  `CREATE TRIGGER evidence_search_delete AFTER DELETE ON evidence BEGIN
     DELETE FROM search_fts WHERE doc_kind = 'evidence' AND ref = old.external_key;
     DELETE FROM search_trigram WHERE doc_kind = 'evidence' AND ref = old.external_key; END`,
  `CREATE TRIGGER evidence_search_update AFTER UPDATE ON evidence BEGIN
     DELETE FROM search_fts WHERE doc_kind = 'evidence' AND ref = old.external_key;
     DELETE FROM search_trigram WHERE doc_kind = 'evidence' AND ref = old.external_key;
     INSERT INTO search_fts (doc_kind, ref, title, body) VALUES ('evidence', new.external_key, new.external_key, new.summary);
     INSERT INTO search_trigram (doc_kind, ref, text) VALUES ('evidence', new.external_key, new.external_key || char(10) || new.summary); END`,
];

/** The characters of scripts written without spaces between words, as a regex class body. */
const CJK_CLASS = "\\u3040-\\u30ff\\u3400-\\u4dbf\\u4e00-\\u9fff\\uf900-\\ufaff\\uac00-\\ud7af";

// PostgreSQL: the entity tsvector now includes the next action; search_cjk holds the character
// bigrams of the CJK runs of each record (awr_cjk_bigrams, plain SQL, no extension needed), so a
// CJK word is a phrase of its bigrams (`任务图` = `任务 <-> 务图`), GIN-indexed like search_tsv.
const postgres = [
  `CREATE FUNCTION awr_cjk_bigrams(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
     SELECT coalesce(string_agg(substr(t, i, 2), ' ' ORDER BY i), '')
       FROM generate_series(1, greatest(length(t) - 1, 0)) AS i
      WHERE substr(t, i, 2) ~ '^[${CJK_CLASS}]{2}$' $$`,
  "ALTER TABLE entities DROP COLUMN search_tsv",
  `ALTER TABLE entities ADD COLUMN search_tsv tsvector GENERATED ALWAYS AS (
     setweight(to_tsvector('english', title), 'A') ||
     setweight(to_tsvector('english', coalesce(summary, '') || ' ' || body || ' ' ||
       coalesce(attributes::jsonb ->> 'next_action', '')), 'B')) STORED`,
  "CREATE INDEX entities_search ON entities USING GIN (search_tsv)",
  `ALTER TABLE entities ADD COLUMN search_cjk tsvector GENERATED ALWAYS AS (
     to_tsvector('simple', awr_cjk_bigrams(title || ' ' || coalesce(summary, '') || ' ' || body || ' ' ||
       coalesce(attributes::jsonb ->> 'next_action', '')))) STORED`,
  "CREATE INDEX entities_search_cjk ON entities USING GIN (search_cjk)",
  `ALTER TABLE evidence ADD COLUMN search_cjk tsvector GENERATED ALWAYS AS (
     to_tsvector('simple', awr_cjk_bigrams(summary))) STORED`,
  "CREATE INDEX evidence_search_cjk ON evidence USING GIN (search_cjk)",
];

export const migration006SourcesAnyLanguage: Migration = {
  version: 6,
  name: "sources: directory units and source notes; search in any language",
  statements: { sqlite: [...common, ...sqlite], postgres: [...common, ...postgres] },
};
