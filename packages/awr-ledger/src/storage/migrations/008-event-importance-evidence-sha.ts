import type { Migration } from "../migration.js";

// The event and evidence fields the tools take (docs/compatibility/storage.md): an event's
// `importance` (low|normal|high|critical; every existing event was `normal`) and the `source_sha`
// an evidence record was verified against (unknown for existing records). Same statements on both
// backends.
const statements = [
  "ALTER TABLE events ADD COLUMN importance TEXT NOT NULL DEFAULT 'normal'",
  "ALTER TABLE evidence ADD COLUMN source_sha TEXT",
];

export const migration008EventImportanceEvidenceSha: Migration = {
  version: 8,
  name: "event importance and evidence source_sha",
  statements: { sqlite: statements, postgres: statements },
};
