import { resolve } from "node:path";
import { owningSource, type SourceRefusal } from "../projection/stale-check.js";
import { MISSING_FINGERPRINT, statFile } from "../sources/fingerprint.js";
import type { Manifest } from "../sources/manifest.js";
import { MANIFEST_PATH } from "../sources/read-sources.js";
import type { SourceTable } from "../storage/schema.js";
import { type DoctorFinding, finding } from "./doctor-finding.js";

/** A source row as the doctor compares it with the manifest. */
export type IndexedSource = Pick<
  SourceTable,
  "path" | "domain" | "role" | "adapter" | "fingerprint"
>;

export interface SourceCheck {
  findings: DoctorFinding[];
  /** Sources whose file could be read. */
  checked: number;
}

const trimmed = (path: string) => path.replace(/\/+$/, "");

/**
 * The manifest's sources against the index, without reindexing (the source_* codes of the
 * original's doctor): `changed` is what the stale check found changed since the last index
 * (the manifest's own path included); `refused`, those of them a reindex would refuse, with
 * its reason: such a source is `source_access_failed` (error) with the reindex's message, not
 * merely changed, since reindexing does not fix it.
 */
export function checkSources(
  root: string,
  manifest: Manifest,
  indexed: readonly IndexedSource[],
  changed: ReadonlySet<string>,
  refused: ReadonlyMap<string, SourceRefusal> = new Map(),
): SourceCheck {
  const findings: DoctorFinding[] = [];
  let checked = 0;
  if (changed.has(MANIFEST_PATH)) {
    findings.push(
      finding(
        "source_configuration_changed",
        "warning",
        "manifest",
        MANIFEST_PATH,
        "Current manifest differs from the one last indexed; reindex required.",
      ),
    );
  }
  const owned = new Set<string>();
  for (const source of manifest.sources) {
    const rows = indexed.filter((row) => owningSource(manifest, row.path) === source);
    if (rows.length === 0) {
      const path = trimmed(source.path);
      if (statFile(resolve(root, path)) !== undefined) checked++;
      findings.push(
        finding(
          "source_not_indexed",
          "warning",
          "source",
          path,
          "Current manifest source has no active projection; reindex required.",
        ),
      );
      continue;
    }
    for (const row of rows) {
      owned.add(row.path);
      if (
        row.domain !== source.domain ||
        row.role !== source.role ||
        row.adapter !== source.adapter
      ) {
        findings.push(
          finding(
            "source_configuration_changed",
            "warning",
            "source",
            row.path,
            "Current manifest configuration differs from the indexed source; reindex required.",
          ),
        );
      }
      const accessFailed = (why: string) =>
        findings.push(finding("source_access_failed", "error", "source", row.path, why));
      const refusal = refused.get(row.path);
      if (refusal !== undefined) {
        checked++;
        accessFailed(
          `${row.path} cannot be indexed as it is now (${refusal.code}): ${refusal.message}`,
        );
        continue;
      }
      if (statFile(resolve(root, row.path)) === undefined) {
        if (row.fingerprint === MISSING_FINGERPRINT) continue;
        accessFailed(
          `${row.path} is indexed but can no longer be read (missing); restore it, or reindex to record its removal.`,
        );
        continue;
      }
      checked++;
      if (changed.has(row.path)) {
        findings.push(
          finding(
            "source_fingerprint_changed",
            "warning",
            "source",
            row.path,
            `Observed content differs from indexed ${row.fingerprint}. Retained projection was not changed; reindex required.`,
          ),
        );
      }
    }
  }
  for (const row of indexed) {
    if (owned.has(row.path)) continue;
    findings.push(
      finding(
        "source_no_longer_selected",
        "warning",
        "source",
        row.path,
        "Source is retained as active but no longer selected by the manifest; reindex required.",
      ),
    );
  }
  return { findings, checked };
}
