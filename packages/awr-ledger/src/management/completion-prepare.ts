import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import type { Kysely } from "kysely";
import { LIMITS } from "../core/limits.js";
import { LedgerError } from "../errors.js";
import { acceptanceOf, workNotFound } from "../read/entity-view.js";
import { projectionAt } from "../read/projection-cache.js";
import { resolveBranch } from "../runtime/branch-select.js";
import type { AcceptanceCriterion } from "../sources/adapters/yaml-work-item.js";
import { confineSourcePath } from "../sources/confinement.js";
import type { LedgerSchema } from "../storage/schema.js";
import { type EvidenceLevel, evidenceRank, meetsEvidenceLevel } from "../work/evidence-levels.js";
import type { CompletionInput } from "../work/work-completion.js";
import { acceptanceAmbiguous } from "./work-assess.js";

export interface CompletionPrepareInput {
  work: string;
  /** The report's path inside the project. */
  report: string;
  evidence_key: string;
  source_sha: string;
  /** The level the caller asserts the report proves; never checked by running anything. */
  level: EvidenceLevel;
  branch?: string | null | undefined;
}

/** A completion report (version 1): what was checked, at which source revision, with what result. */
interface CompletionReport {
  version: 1;
  work_item: string;
  source_sha: string;
  command: string;
  scope: string[];
  verified_at: number;
  checks: { name: string; passed: boolean; details: string; criteria: string[] }[];
}

export interface CompletionPrepareResult {
  version: 1;
  stage: "report_validated";
  report_sha256: string;
  /** The awr_evidence_record arguments for this report (without expected_revision). */
  evidence: Record<string, unknown>;
  /** The completion mapping for awr_work_transition (action complete). */
  completion: CompletionInput & { minimum_level: EvidenceLevel; required_evidence: string[] };
  verification_executed: false;
  completion_claimed: false;
  level_basis: "caller_assertion";
  next_action: "record_evidence_then_complete_with_current_revision_and_owned_session";
}

const REPORT_RULE = "completion.report.v1";
const REPAIR =
  "Write version 1, work_item, source_sha, command, scope, verified_at and checks (each with name, passed, details and criteria).";

function reportInvalid(report: string, problem: string): LedgerError {
  return new LedgerError(
    "InvalidInput",
    `completion report ${report} does not match ${REPORT_RULE}: ${problem}. ${REPAIR}`,
    { field: "report", locator: report, rule: REPORT_RULE, repair: REPAIR },
  );
}

const isText = (v: unknown): v is string => typeof v === "string";
const isTextList = (v: unknown): v is string[] => Array.isArray(v) && v.every(isText);
const REPORT_FIELDS = [
  "version",
  "work_item",
  "source_sha",
  "command",
  "scope",
  "verified_at",
  "checks",
];
const CHECK_FIELDS = ["name", "passed", "details", "criteria"];

/** The report's shape, strictly (unknown fields refused), or InvalidInput saying what is wrong. */
function parseReport(bytes: Buffer, locator: string): CompletionReport {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch (error) {
    throw reportInvalid(locator, `it is not JSON (${(error as Error).message})`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw reportInvalid(locator, "it is not a JSON object");
  }
  const r = value as Record<string, unknown>;
  const extra = Object.keys(r).filter((k) => !REPORT_FIELDS.includes(k));
  if (extra.length > 0) throw reportInvalid(locator, `unknown fields ${extra.join(", ")}`);
  if (r["version"] !== 1) throw reportInvalid(locator, "version must be 1");
  for (const field of ["work_item", "source_sha", "command"]) {
    if (!isText(r[field])) throw reportInvalid(locator, `${field} must be a string`);
  }
  if (!isTextList(r["scope"])) throw reportInvalid(locator, "scope must be a list of strings");
  if (!Number.isSafeInteger(r["verified_at"])) {
    throw reportInvalid(locator, "verified_at must be an integer (ms since the epoch)");
  }
  const checks = r["checks"];
  if (!Array.isArray(checks) || checks.length === 0) {
    throw reportInvalid(locator, "checks must be a non-empty list");
  }
  for (const [index, check] of checks.entries()) {
    const c = (check ?? {}) as Record<string, unknown>;
    if (
      typeof check !== "object" ||
      Array.isArray(check) ||
      Object.keys(c).some((k) => !CHECK_FIELDS.includes(k)) ||
      !isText(c["name"]) ||
      typeof c["passed"] !== "boolean" ||
      !isText(c["details"]) ||
      !isTextList(c["criteria"])
    ) {
      throw reportInvalid(
        locator,
        `checks[${index}] needs exactly name, passed (true/false), details and criteria (a list)`,
      );
    }
  }
  return value as CompletionReport;
}

/** The report's bytes, read from inside the project, at most LIMITS.completionReportBytes. */
function readReport(root: string, report: string): Buffer {
  const { absolute } = confineSourcePath(root, report);
  let size: number;
  try {
    const stat = statSync(absolute);
    if (!stat.isFile()) throw new Error("not a file");
    size = stat.size;
  } catch {
    throw new LedgerError("NotFound", `no report file ${report} in the project`, {
      report,
    });
  }
  if (size > LIMITS.completionReportBytes) {
    throw new LedgerError(
      "InvalidInput",
      `report ${report} is ${size} bytes; a completion report is at most ${LIMITS.completionReportBytes}`,
      { field: "report", bytes: size },
    );
  }
  return readFileSync(absolute);
}

const matches = (criterion: AcceptanceCriterion, name: string) =>
  criterion.id === name || criterion.text === name;

/**
 * awr_completion_prepare: reads the actual report bytes, checks them against the work's current
 * acceptance criteria and derives the evidence record and completion mapping that would use
 * them. Nothing is run, recorded or completed; the level is the caller's assertion.
 */
export async function completionPrepare(
  db: Kysely<LedgerSchema>,
  root: string | undefined,
  input: CompletionPrepareInput,
  revision: number,
  nowMs: number,
): Promise<CompletionPrepareResult> {
  const keyBytes = Buffer.byteLength(input.evidence_key, "utf8");
  if (
    input.evidence_key.trim() === "" ||
    keyBytes > LIMITS.evidenceKeyBytes ||
    evidenceRank(input.level) < evidenceRank("locally_verified")
  ) {
    throw new LedgerError(
      "InvalidInput",
      `completion preparation needs a non-blank evidence_key of at most ${LIMITS.evidenceKeyBytes} bytes and a declared level of at least locally_verified (got ${input.level})`,
      {
        field:
          input.evidence_key.trim() === "" || keyBytes > LIMITS.evidenceKeyBytes
            ? "evidence_key"
            : "level",
      },
    );
  }
  const projection = await projectionAt(db, revision);
  const work = projection.entity(input.work);
  if (work?.kind !== "work") throw workNotFound(input.work);
  if (acceptanceAmbiguous(work)) {
    throw new LedgerError(
      "EvidenceMissing",
      `${work.key} has no unambiguous acceptance criteria (none, a blank one, or a repeated one); fix them in the source before completing it`,
      { work: work.key },
    );
  }
  // The branch must exist; the evidence draft names it as the caller did.
  await resolveBranch(db, input.branch);
  if (root === undefined) {
    throw new LedgerError("Unsupported", "this runtime has no project root to read reports from");
  }
  const bytes = readReport(root, input.report);
  const report = parseReport(bytes, input.report);
  const criteria = acceptanceOf(work);
  const problems: string[] = [];
  if (report.work_item !== work.key) {
    problems.push(`work_item is ${report.work_item}, not ${work.key}`);
  }
  if (report.source_sha !== input.source_sha) {
    problems.push(`source_sha is ${report.source_sha}, not ${input.source_sha}`);
  }
  if (report.command.trim() === "") problems.push("command is blank");
  if (report.verified_at < 0 || report.verified_at > nowMs) {
    problems.push("verified_at is not a past time");
  }
  for (const check of report.checks) {
    if (check.name.trim() === "") problems.push("a check has a blank name");
    for (const name of check.criteria) {
      if (!criteria.some((c) => matches(c, name))) {
        problems.push(`check "${check.name}" names "${name}", not an acceptance criterion`);
      }
    }
  }
  if (problems.length > 0) throw reportInvalid(input.report, problems.join("; "));

  const failing = (c: AcceptanceCriterion) =>
    report.checks.some((k) => !k.passed && k.criteria.some((n) => matches(c, n)));
  const covered = (c: AcceptanceCriterion) =>
    !failing(c) && report.checks.some((k) => k.passed && k.criteria.some((n) => matches(c, n)));
  const uncovered = criteria.filter((c) => !covered(c));
  const belowLevel = criteria.filter((c) => !meetsEvidenceLevel(input.level, c.level));
  if (report.scope.length === 0 || uncovered.length > 0 || belowLevel.length > 0) {
    throw new LedgerError(
      "EvidenceMissing",
      `the report must declare a non-empty scope and pass a check for every current acceptance criterion of ${work.key} at its level` +
        (uncovered.length > 0 ? `; not covered: ${uncovered.map((c) => c.id).join(", ")}` : "") +
        (belowLevel.length > 0
          ? `; needing more than ${input.level}: ${belowLevel.map((c) => `${c.id} (${c.level})`).join(", ")}`
          : ""),
      {
        work: work.key,
        ...(report.scope.length === 0 ? { scope: [] } : {}),
        uncovered: uncovered.map((c) => ({ id: c.id, text: c.text })),
        below_level: belowLevel.map((c) => ({ id: c.id, level: c.level })),
      },
    );
  }
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  return {
    version: 1,
    stage: "report_validated",
    report_sha256: sha256,
    evidence: {
      external_key: input.evidence_key,
      work: work.key,
      evidence_type: "verification_report",
      level: input.level,
      summary: `Completion report for ${work.key}`,
      locator: input.report,
      sha256,
      source_sha: input.source_sha,
      command: report.command,
      scope: report.scope,
      branch: input.branch ?? null,
      verified_at: report.verified_at,
    },
    completion: {
      version: 1,
      source_sha: input.source_sha,
      minimum_level: input.level,
      acceptance: criteria.map((c) => ({ criterion: c.text, evidence: [input.evidence_key] })),
      required_evidence: [],
    },
    verification_executed: false,
    completion_claimed: false,
    level_basis: "caller_assertion",
    next_action: "record_evidence_then_complete_with_current_revision_and_owned_session",
  };
}
