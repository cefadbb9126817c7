import type { LedgerMapping } from "./ledger-mapping.js";
import type { LedgerRecord } from "./ledger-record.js";
import type { ParsedDependency, ParsedEntity, SourceIssue } from "./types.js";

export const EVIDENCE_LEVELS = [
  "designed",
  "implemented",
  "locally_verified",
  "real_environment_validated",
  "release_candidate",
  "released",
] as const;

/** Required evidence level of an acceptance criterion that names none. */
export const DEFAULT_ACCEPTANCE_LEVEL = "locally_verified";

export interface AcceptanceCriterion {
  id: string;
  text: string;
  level: string;
}

/** A ledger `evidence:` entry: a reference to check, never proof (level `unknown`). */
export interface SourceEvidence {
  locator: string;
  summary: string;
  evidence_type: "source_reference";
  level: "unknown";
  [field: string]: unknown;
}

/** Fields the projection reads; every other field of an item is kept under `extra`. */
const WORK_FIELDS = [
  "id",
  "external_key",
  "title",
  "status",
  "kind",
  "goal",
  "goals",
  "milestone",
  "required",
  "required_for_v1",
  "priority",
  "owner",
  "summary",
  "acceptance",
  "depends_on",
  "dependencies",
  "next_action",
  "blocker",
  "tags",
  "paths",
  "deliverables",
  "evidence",
  "decisions",
  "score",
  "evidence_level",
];

/** Two spellings of one field (`required`/`required_for_v1`, ...): at most one value. */
const ALIASES = [
  ["required", "required_for_v1"],
  ["depends_on", "dependencies"],
  ["paths", "deliverables"],
  ["goal", "goals"],
] as const;

type Report = (severity: SourceIssue["severity"], message: string) => void;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asArray(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

function str(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === "string" ? value : String(value);
}

function isKey(value: unknown): value is string | number {
  return (typeof value === "string" && value.trim() !== "") || typeof value === "number";
}

function acceptanceOf(key: string, value: unknown, report: Report): AcceptanceCriterion[] {
  return asArray(value).flatMap((entry, index): AcceptanceCriterion[] => {
    if (typeof entry === "string") {
      return [{ id: `ac-${index + 1}`, text: entry, level: DEFAULT_ACCEPTANCE_LEVEL }];
    }
    if (isRecord(entry) && typeof entry["text"] === "string") {
      const level = typeof entry["level"] === "string" ? entry["level"] : DEFAULT_ACCEPTANCE_LEVEL;
      if (!(EVIDENCE_LEVELS as readonly string[]).includes(level)) {
        report(
          "error",
          `work item ${key}: acceptance level "${level}" is not one of ${EVIDENCE_LEVELS.join("|")}`,
        );
      }
      const id = entry["id"] === undefined ? `ac-${index + 1}` : String(entry["id"]);
      return [{ id, text: entry["text"], level }];
    }
    report("error", `work item ${key}: acceptance entries are strings or {id, text, level}`);
    return [];
  });
}

function dependenciesOf(key: string, value: unknown, report: Report): ParsedDependency[] {
  const targets = new Set<string>();
  const out: ParsedDependency[] = [];
  for (const entry of asArray(value)) {
    let target: string;
    let required = true;
    if (isKey(entry)) target = String(entry);
    else if (isRecord(entry) && (isKey(entry["id"]) || isKey(entry["key"]))) {
      target = String(entry["id"] ?? entry["key"]);
      required = entry["required"] !== false;
    } else {
      report("error", `work item ${key}: depends_on entries are work keys or {id, required}`);
      continue;
    }
    if (targets.has(target)) {
      report("error", `work item ${key}: depends on ${target} twice; list it once`);
      continue;
    }
    targets.add(target);
    out.push({ work_key: key, depends_on: target, required });
  }
  return out;
}

const UNVERIFIED = "Evidence reference; not yet verified by AWR";

function evidenceOf(key: string, value: unknown, report: Report): SourceEvidence[] {
  const seen = new Set<string>();
  const out: SourceEvidence[] = [];
  for (const entry of asArray(value)) {
    const record = isRecord(entry) ? entry : {};
    const locator = isRecord(entry) ? (entry["locator"] ?? entry["path"]) : entry;
    if (typeof locator !== "string" || locator.trim() === "") {
      report(
        "error",
        `work item ${key}: evidence entries are locator strings or {locator, summary}`,
      );
      continue;
    }
    if (seen.has(locator)) {
      report("error", `work item ${key}: evidence ${locator} is listed twice`);
      continue;
    }
    seen.add(locator);
    out.push({
      ...record,
      locator,
      summary: typeof record["summary"] === "string" ? record["summary"] : UNVERIFIED,
      evidence_type: "source_reference",
      level: "unknown",
    });
  }
  return out;
}

/**
 * One work item of a yaml-ledger-v1 source: its status (through the
 * source's `status_map`; an unknown or missing one is `unknown`, with the raw text kept),
 * acceptance, dependencies (`depends_on` or `dependencies`), `required` or `required_for_v1`,
 * `paths` or `deliverables`, `goal` or `goals`, and evidence references. Every other field is
 * kept under `extra`, as written. Undefined when the item cannot be projected.
 */
export function workItemEntity(
  record: LedgerRecord,
  mapping: LedgerMapping,
  report: Report,
): { entity: ParsedEntity; dependencies: ParsedDependency[] } | undefined {
  const { key, value: v } = record;
  for (const [a, b] of ALIASES) {
    if (v[a] !== undefined && v[b] !== undefined && JSON.stringify(v[a]) !== JSON.stringify(v[b])) {
      report(
        "error",
        `work item ${key}: ${a} and ${b} are two spellings of one field with different values; keep one`,
      );
      return undefined;
    }
  }
  const rawStatus = str(v["status"]);
  const status = rawStatus === null ? undefined : mapping.status(rawStatus);
  if (status === undefined) {
    report(
      "warning",
      rawStatus === null
        ? `work item ${key} has no status; projected as unknown (it is never ready)`
        : `work item ${key}: status "${rawStatus}" is not known; projected as unknown`,
    );
  }
  const acceptance = acceptanceOf(key, v["acceptance"], report);
  const dependencies = dependenciesOf(key, v["depends_on"] ?? v["dependencies"], report);
  const goals = asArray(v["goal"] ?? v["goals"]).map(String);
  const verification = isRecord(v["verification"]) ? v["verification"] : {};
  const evidenceLevel = str(v["evidence_level"] ?? verification["evidence_level"]);
  const extra = Object.fromEntries(
    Object.entries(v).filter(([field]) => !WORK_FIELDS.includes(field)),
  );
  const summary = str(v["summary"]);
  const required = v["required"] ?? v["required_for_v1"];
  return {
    entity: {
      kind: "work",
      key,
      title: str(v["title"]) ?? key,
      status: status ?? "unknown",
      raw_status: status === undefined || status !== rawStatus ? rawStatus : null,
      summary,
      body: [summary, ...acceptance.map((a) => a.text)].filter((s) => s !== null).join("\n"),
      attributes: {
        goal: goals[0] ?? null,
        ...(goals.length > 1 ? { goals } : {}),
        milestone:
          v["milestone"] === undefined || v["milestone"] === null ? null : String(v["milestone"]),
        required: required !== false,
        priority: v["priority"] ?? null,
        owner: str(v["owner"]),
        kind: str(v["kind"]),
        acceptance,
        next_action: str(v["next_action"]),
        blocker: str(v["blocker"]),
        tags: asArray(v["tags"]).map(String),
        paths: asArray(v["paths"] ?? v["deliverables"]).map(String),
        evidence: evidenceOf(key, v["evidence"], report),
        decisions: asArray(v["decisions"]).map(String),
        score: v["score"] ?? null,
        evidence_level: evidenceLevel,
        ...(Object.keys(extra).length === 0 ? {} : { extra }),
      },
      line_start: record.line_start,
      line_end: record.line_end,
    },
    dependencies,
  };
}
