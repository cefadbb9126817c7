import { EVIDENCE_LEVELS } from "../sources/adapters/yaml-work-item.js";

/**
 * Evidence levels in ascending strength (EVIDENCE_LEVELS, defined once with the work-item source
 * format). `unknown` ranks below everything, so evidence of unknown level never satisfies an
 * acceptance criterion.
 */
export { EVIDENCE_LEVELS };
export type EvidenceLevel = (typeof EVIDENCE_LEVELS)[number] | "unknown";

/** The level a criterion needs when its source names none. */
export const DEFAULT_REQUIRED_EVIDENCE_LEVEL: EvidenceLevel = "locally_verified";

export function isEvidenceLevel(value: unknown): value is EvidenceLevel {
  return (
    value === "unknown" ||
    (typeof value === "string" && (EVIDENCE_LEVELS as readonly string[]).includes(value))
  );
}

/** Rank for comparison: -1 for `unknown` or anything unrecognised. */
export function evidenceRank(level: string): number {
  return (EVIDENCE_LEVELS as readonly string[]).indexOf(level);
}

/** True when `level` is at or above `required`. */
export function meetsEvidenceLevel(level: string, required: string): boolean {
  const have = evidenceRank(level);
  return have >= 0 && have >= Math.max(0, evidenceRank(required));
}
