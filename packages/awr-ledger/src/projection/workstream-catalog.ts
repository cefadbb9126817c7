import type { Kysely } from "kysely";
import type { WorkstreamState } from "../sources/adapters/workstream-format.js";
import type { LedgerSchema } from "../storage/schema.js";

/** Row shapes of migration 007, merged into `LedgerSchema`. JSON columns hold text. */
export interface WorkstreamCatalogTable {
  source_path: string;
  version: number;
  legacy_default: string | null;
  /** The revision that first indexed the declaration (the project serves workstreams since). */
  enabled_revision: number;
  indexed_revision: number;
}

export interface WorkstreamTable {
  id: string;
  external_key: string;
  title: string;
  state: string;
  authority_version: number;
  /** JSON array text. */
  goal_keys: string;
  /** JSON array text. */
  acceptance_contracts: string;
  line: number;
  ordinal: number;
  indexed_revision: number;
}

export interface WorkstreamOwnershipTable {
  work: string;
  workstream_id: string;
}

declare module "../storage/schema.js" {
  interface LedgerSchema {
    workstream_catalog: WorkstreamCatalogTable;
    workstreams: WorkstreamTable;
    workstream_ownership: WorkstreamOwnershipTable;
  }
}

/** A workstream as `awr_workstream` returns it, its fields in this order. */
export interface Workstream {
  id: string;
  project_id: string;
  external_key: string;
  title: string;
  state: WorkstreamState;
  authority_version: number;
  goal_keys: string[];
  acceptance_contracts: string[];
}

/** What the projection holds about a project's workstreams; `source_path` null = not enabled. */
export interface RecordedCatalog {
  source_path: string | null;
  version: number;
  legacy_default: string | null;
  enabled_revision: number | null;
  workstreams: (Workstream & { line: number })[];
}

/** Reads the recorded catalog in declaration order. */
export async function readCatalog(
  db: Kysely<LedgerSchema>,
  projectId: string,
): Promise<RecordedCatalog> {
  const [catalog, rows] = await Promise.all([
    db.selectFrom("workstream_catalog").selectAll().executeTakeFirst(),
    db.selectFrom("workstreams").selectAll().orderBy("ordinal").execute(),
  ]);
  return {
    source_path: catalog?.source_path ?? null,
    version: Number(catalog?.version ?? 1),
    legacy_default: catalog?.legacy_default ?? null,
    enabled_revision: catalog === undefined ? null : Number(catalog.enabled_revision),
    workstreams: rows.map((row) => ({
      id: row.id,
      project_id: projectId,
      external_key: row.external_key,
      title: row.title,
      state: row.state as WorkstreamState,
      authority_version: Number(row.authority_version),
      goal_keys: JSON.parse(row.goal_keys) as string[],
      acceptance_contracts: JSON.parse(row.acceptance_contracts) as string[],
      line: Number(row.line),
    })),
  };
}

/** The public view of a recorded workstream (without its line). */
export function publicWorkstream({ line: _line, ...stream }: Workstream & { line: number }) {
  return stream;
}
