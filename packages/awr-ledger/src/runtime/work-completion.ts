import type { Kysely } from "kysely";
import { LedgerError } from "../errors.js";
import type { EntityTable, LedgerSchema } from "../storage/schema.js";
import { DEFAULT_REQUIRED_EVIDENCE_LEVEL, meetsEvidenceLevel } from "./evidence-levels.js";

export interface CompletionEntry {
  /** An acceptance criterion's id or its exact text. */
  criterion: string;
  /** Evidence external_keys recorded with awr_evidence_record. */
  evidence: string[];
}

interface Criterion {
  id: string;
  text: string;
  level: string;
}

export function acceptanceCriteria(work: EntityTable): Criterion[] {
  const attributes = JSON.parse(work.attributes) as { acceptance?: unknown };
  const list = Array.isArray(attributes.acceptance) ? attributes.acceptance : [];
  return list.map((entry, index) => {
    if (typeof entry === "string") {
      return { id: `ac-${index + 1}`, text: entry, level: DEFAULT_REQUIRED_EVIDENCE_LEVEL };
    }
    const e = (entry ?? {}) as { id?: unknown; text?: unknown; level?: unknown };
    return {
      id: e.id === undefined ? `ac-${index + 1}` : String(e.id),
      text: typeof e.text === "string" ? e.text : "",
      level: typeof e.level === "string" ? e.level : DEFAULT_REQUIRED_EVIDENCE_LEVEL,
    };
  });
}

/**
 * Checks a completion mapping against the item's acceptance criteria (AWR.md section 3):
 * every criterion needs at least one named evidence record at or above its required level.
 * Unknown criteria are InvalidInput, unknown evidence keys NotFound, and unmet criteria
 * EvidenceMissing naming each of them.
 */
export async function checkCompletion(
  db: Kysely<LedgerSchema>,
  work: EntityTable,
  completion: readonly CompletionEntry[],
): Promise<{ criterion: string; evidence: string[] }[]> {
  const criteria = acceptanceCriteria(work);
  const byCriterion = new Map<string, string[]>();
  for (const entry of completion) {
    const match = criteria.find((c) => c.id === entry.criterion || c.text === entry.criterion);
    if (match === undefined) {
      throw new LedgerError(
        "InvalidInput",
        `"${entry.criterion}" is not an acceptance criterion of ${work.key}; use a criterion id (${criteria.map((c) => c.id).join(", ") || "none"}) or its exact text`,
        { field: "completion", criterion: entry.criterion },
      );
    }
    byCriterion.set(match.id, [...(byCriterion.get(match.id) ?? []), ...entry.evidence]);
  }
  const keys = [...new Set([...byCriterion.values()].flat())];
  const rows =
    keys.length === 0
      ? []
      : await db
          .selectFrom("evidence")
          .select(["external_key", "level"])
          .where("external_key", "in", keys)
          .execute();
  const levels = new Map(rows.map((row) => [row.external_key, row.level]));
  const missingKeys = keys.filter((key) => !levels.has(key));
  if (missingKeys.length > 0) {
    throw new LedgerError(
      "NotFound",
      `no evidence recorded under ${missingKeys.join(", ")}; record it with awr_evidence_record first`,
      { evidence: missingKeys },
    );
  }
  const unmet = criteria.filter((criterion) => {
    const named = byCriterion.get(criterion.id) ?? [];
    return !named.some((key) => meetsEvidenceLevel(levels.get(key) ?? "unknown", criterion.level));
  });
  if (unmet.length > 0) {
    throw new LedgerError(
      "EvidenceMissing",
      `completing ${work.key} needs evidence at or above the required level for: ` +
        unmet.map((c) => `${c.id} (${c.level}) "${c.text}"`).join("; "),
      {
        work: work.key,
        criteria: unmet.map((c) => ({ id: c.id, text: c.text, level: c.level })),
      },
    );
  }
  return criteria.map((c) => ({ criterion: c.id, evidence: byCriterion.get(c.id) ?? [] }));
}
