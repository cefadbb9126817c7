import type { EntityTable } from "../storage/schema.js";

export interface SourceRef {
  path: string;
  line_start: number;
  line_end: number;
}

/** An entity row with its attributes parsed, as read models use it. */
export interface EntityView {
  id: string;
  kind: string;
  key: string;
  title: string;
  status: string;
  raw_status: string | null;
  summary: string | null;
  body: string;
  attributes: Record<string, unknown>;
  source: SourceRef;
}

/** The entity columns read models need (not PostgreSQL's search vector). */
export const ENTITY_COLUMNS = [
  "id",
  "kind",
  "key",
  "title",
  "status",
  "raw_status",
  "summary",
  "body",
  "attributes",
  "source_path",
  "line_start",
  "line_end",
  "ordinal",
  "indexed_revision",
] as const satisfies readonly (keyof EntityTable)[];

export function toView(row: EntityTable): EntityView {
  return {
    id: row.id,
    kind: row.kind,
    key: row.key,
    title: row.title,
    status: row.status,
    raw_status: row.raw_status,
    summary: row.summary,
    body: row.body,
    attributes: JSON.parse(row.attributes) as Record<string, unknown>,
    source: {
      path: row.source_path,
      line_start: Number(row.line_start),
      line_end: Number(row.line_end),
    },
  };
}
