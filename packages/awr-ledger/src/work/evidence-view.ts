import type { EvidenceTable } from "../storage/schema.js";

// Recorded evidence as answers show it: one type and one function that reads a row.

/** A recorded evidence record, as tools return it (docs/compatibility/runtime.md). */
export interface EvidenceView {
  id: string;
  external_key: string;
  evidence_type: string;
  level: string;
  summary: string;
  locator: string | null;
  scope: string[];
  sha256: string | null;
  source_sha: string | null;
  command: string | null;
  /** Milliseconds since the epoch, or null. */
  verified_at: number | null;
  work: string | null;
  session_id: string | null;
  revision: number;
  /** The branch it was recorded on (null = main). */
  branch_id: string | null;
}

export function evidenceView(row: EvidenceTable): EvidenceView {
  return {
    id: row.id,
    external_key: row.external_key,
    evidence_type: row.evidence_type,
    level: row.level,
    summary: row.summary,
    locator: row.locator,
    scope: JSON.parse(row.scope) as string[],
    sha256: row.sha256,
    source_sha: row.source_sha ?? null,
    command: row.command,
    verified_at: row.verified_at === null ? null : Date.parse(row.verified_at),
    work: row.work,
    session_id: row.session,
    revision: Number(row.revision),
    branch_id: row.branch ?? null,
  };
}

/**
 * A work item's recorded evidence as awr_work_get lists it: the same record under the names
 * that answer has always had (`session` for `session_id`, `verified_at` as the stored ISO
 * text), without the id and the work item (the one asked about).
 */
export type WorkEvidenceView = Omit<EvidenceView, "id" | "work" | "session_id" | "verified_at"> & {
  verified_at: string | null;
  session: string | null;
};

/** The awr_work_get form of `evidenceView(row)` (fields in that answer's order). */
export function workEvidenceView(row: EvidenceTable): WorkEvidenceView {
  const view = evidenceView(row);
  return {
    external_key: view.external_key,
    evidence_type: view.evidence_type,
    level: view.level,
    summary: view.summary,
    locator: view.locator,
    scope: view.scope,
    sha256: view.sha256,
    source_sha: view.source_sha,
    command: view.command,
    verified_at: row.verified_at,
    session: view.session_id,
    revision: view.revision,
    branch_id: view.branch_id,
  };
}
