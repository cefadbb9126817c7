import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Kysely } from "kysely";
import { LedgerError } from "../errors.js";
import { confineSourcePath } from "../sources/confinement.js";
import type { EntityTable, EvidenceTable, LedgerSchema } from "../storage/schema.js";
import {
  DEFAULT_REQUIRED_EVIDENCE_LEVEL,
  type EvidenceLevel,
  evidenceRank,
  meetsEvidenceLevel,
} from "./evidence-levels.js";

/** The completion mapping of `awr_work_transition` (action complete). */
export interface CompletionInput {
  version: 1;
  /** The source revision (commit SHA) the work is complete at; the evidence must be bound to it. */
  source_sha: string;
  acceptance: CompletionEntry[];
  /** Raises every criterion's required level to at least this one. */
  minimum_level?: EvidenceLevel | undefined;
  /** Evidence keys that must be named and meet the required level, whatever the criteria say. */
  required_evidence?: string[] | undefined;
}

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

/** The columns of a recorded evidence row that decide whether it can back a completion. */
type EvidenceBindings = Pick<
  EvidenceTable,
  "external_key" | "level" | "source_sha" | "sha256" | "locator" | "branch"
>;

function higher(a: string, b: string | undefined): string {
  return b !== undefined && evidenceRank(b) > evidenceRank(a) ? b : a;
}

/**
 * Why a recorded piece of evidence cannot back this completion, or null when it can: it must be
 * recorded on the acting session's branch (evidence of another branch is only historical there,
 * docs/design/work-branches.md R4), bound to the completion's source_sha, and a report it names
 * inside the project (a relative locator, with a sha256) must still have those bytes.
 */
function unusable(
  e: EvidenceBindings,
  sourceSha: string,
  root: string | undefined,
  branch: string | null,
): string | null {
  if ((e.branch ?? null) !== branch) {
    return `${e.external_key} was recorded on another branch (${e.branch ?? "main"}), so it is historical here`;
  }
  if (e.source_sha !== sourceSha) {
    return `${e.external_key} is bound to source_sha ${e.source_sha ?? "(none)"}, not ${sourceSha}`;
  }
  if (root === undefined || e.sha256 === null || e.locator === null) return null;
  if (/^[a-z][a-z0-9+.-]*:/i.test(e.locator)) return null; // a URL, not a project file
  let path: string;
  try {
    path = confineSourcePath(root, e.locator).absolute;
  } catch {
    return null; // a URL or a path outside the project: nothing the ledger can read
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return `${e.external_key}'s report ${e.locator} is missing`;
  }
  const digest = createHash("sha256").update(bytes).digest("hex");
  return digest === e.sha256.toLowerCase()
    ? null
    : `${e.external_key}'s report ${e.locator} changed since it was recorded (sha256 differs)`;
}

/**
 * Checks a completion mapping against the item's acceptance criteria: every
 * criterion needs at least one named, usable evidence record at or above its required level.
 * Unknown criteria are InvalidInput, unknown evidence keys NotFound, and unmet criteria or
 * unusable evidence EvidenceMissing naming each of them.
 */
export async function checkCompletion(
  db: Kysely<LedgerSchema>,
  work: EntityTable,
  completion: CompletionInput | undefined,
  root: string | undefined,
  branch: string | null,
): Promise<{ criterion: string; evidence: string[] }[]> {
  const criteria = acceptanceCriteria(work).map((c) => ({
    ...c,
    level: higher(c.level, completion?.minimum_level),
  }));
  const byCriterion = new Map<string, string[]>();
  for (const entry of completion?.acceptance ?? []) {
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
  const required = completion?.required_evidence ?? [];
  const keys = [...new Set([...byCriterion.values(), required].flat())];
  const rows =
    keys.length === 0
      ? []
      : await db
          .selectFrom("evidence")
          .select(["external_key", "level", "source_sha", "sha256", "locator", "branch"])
          .where("external_key", "in", keys)
          .execute();
  const recorded = new Map(rows.map((row) => [row.external_key, row]));
  const missingKeys = keys.filter((key) => !recorded.has(key));
  if (missingKeys.length > 0) {
    throw new LedgerError(
      "NotFound",
      `no evidence recorded under ${missingKeys.join(", ")}; record it with awr_evidence_record first`,
      { evidence: missingKeys },
    );
  }
  const problems = new Map<string, string>();
  for (const e of recorded.values()) {
    const why = completion === undefined ? null : unusable(e, completion.source_sha, root, branch);
    if (why !== null) problems.set(e.external_key, why);
  }
  const usable = (key: string, level: string) =>
    !problems.has(key) && meetsEvidenceLevel(recorded.get(key)?.level ?? "unknown", level);
  const unmet = criteria.filter(
    (criterion) => !(byCriterion.get(criterion.id) ?? []).some((k) => usable(k, criterion.level)),
  );
  const floor = completion?.minimum_level ?? DEFAULT_REQUIRED_EVIDENCE_LEVEL;
  const unmetRequired = required.filter((key) => !usable(key, floor));
  if (unmet.length > 0 || unmetRequired.length > 0) {
    const parts = [
      ...unmet.map((c) => `${c.id} (${c.level}) "${c.text}"`),
      ...unmetRequired.map((key) => `required evidence ${key} (${floor})`),
    ];
    throw new LedgerError(
      "EvidenceMissing",
      `completing ${work.key} needs usable evidence at or above the required level for: ${parts.join("; ")}` +
        (problems.size > 0 ? `. Unusable evidence: ${[...problems.values()].join("; ")}` : ""),
      {
        work: work.key,
        criteria: unmet.map((c) => ({ id: c.id, text: c.text, level: c.level })),
        ...(unmetRequired.length > 0 ? { required_evidence: unmetRequired } : {}),
        ...(problems.size > 0 ? { unusable_evidence: Object.fromEntries(problems) } : {}),
      },
    );
  }
  return criteria.map((c) => ({ criterion: c.id, evidence: byCriterion.get(c.id) ?? [] }));
}
