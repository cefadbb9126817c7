import type { Kysely } from "kysely";
import type { AdapterName, Manifest, ManifestSource, SourceDomain } from "../sources/manifest.js";
import type { LedgerSchema } from "../storage/schema.js";

/** One manifest source as the ledger last indexed it (awr_source_list). */
export interface LedgerSource {
  path: string;
  domain: SourceDomain;
  role: ManifestSource["role"];
  adapter: AdapterName;
  /** The indexed content's fingerprint; empty when the source was never indexed. */
  fingerprint: string;
  entity_count: number;
  indexed_revision: number;
}

/**
 * The manifest's sources in manifest order, with what the last index recorded of each:
 * fingerprint (empty when never indexed), entity count and the revision that indexed it. Reads
 * the index only, never the files, so it answers while the sources are stale or unreadable.
 */
export async function sourceList(
  db: Kysely<LedgerSchema>,
  manifest: Manifest,
): Promise<LedgerSource[]> {
  const rows = await db.selectFrom("sources").selectAll().execute();
  const byPath = new Map(rows.map((row) => [row.path, row]));
  return manifest.sources.map((source) => {
    const row = byPath.get(source.path);
    return {
      path: source.path,
      domain: source.domain,
      role: source.role,
      adapter: source.adapter,
      fingerprint: row?.fingerprint ?? "",
      entity_count: Number(row?.entity_count ?? 0),
      indexed_revision: Number(row?.indexed_revision ?? 0),
    };
  });
}
