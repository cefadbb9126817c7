import type { Node, YAMLMap } from "yaml";
import { yamlModule } from "../../internal/lazy-dependencies.js";
import type {
  AdapterContext,
  AdapterResult,
  ParsedDependency,
  ParsedEntity,
  SourceIssue,
} from "./types.js";

export const WORK_STATUSES = [
  "draft",
  "planned",
  "ready",
  "claimed",
  "in_progress",
  "blocked",
  "completed",
  "cancelled",
] as const;
export type WorkStatus = (typeof WORK_STATUSES)[number] | "unknown";

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

const WORK_FIELDS = [
  "id",
  "title",
  "status",
  "goal",
  "milestone",
  "required",
  "priority",
  "owner",
  "summary",
  "acceptance",
  "depends_on",
  "next_action",
  "blocker",
  "tags",
  "paths",
  "evidence",
  "decisions",
];
const MILESTONE_FIELDS = ["id", "title", "status", "summary", "goal", "due"];

/**
 * yaml-ledger-v1: a YAML document with top-level `work_items:` and `milestones:` lists. Parsed
 * with the yaml package's document API and a LineCounter, so every entity carries its line range
 * and every problem its line.
 */
export function yamlLedgerV1(text: string, context: AdapterContext): AdapterResult {
  const { isMap, isSeq, LineCounter, parseDocument } = yamlModule();
  const issues: SourceIssue[] = [];
  const entities: ParsedEntity[] = [];
  const dependencies: ParsedDependency[] = [];
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const lineOf = (offset: number | undefined) =>
    offset === undefined ? null : lineCounter.linePos(offset).line;
  const issue = (line: number | null, severity: SourceIssue["severity"], message: string) =>
    issues.push({ path: context.path, line, severity, message });
  for (const error of doc.errors)
    issue(lineOf(error.pos[0]), "error", error.message.split("\n")[0] ?? "invalid YAML");
  if (doc.errors.length > 0) return { entities, dependencies, issues };
  const root = doc.contents;
  if (root === null || (isMap(root) && root.items.length === 0))
    return { entities, dependencies, issues };
  if (!isMap(root)) {
    issue(
      lineOf(root.range?.[0]),
      "error",
      "the work ledger must be a mapping with work_items: and milestones:",
    );
    return { entities, dependencies, issues };
  }
  for (const pair of root.items) {
    const name = String((pair.key as Node | null)?.toJSON?.() ?? pair.key);
    if (name !== "work_items" && name !== "milestones") {
      issue(
        lineOf((pair.key as Node).range?.[0]),
        "warning",
        `unknown top-level key "${name}" ignored`,
      );
    }
  }
  const seen = new Map<string, number>();
  const list = (name: string): YAMLMap[] => {
    const node = root.get(name, true) as Node | undefined;
    if (node === undefined || node === null) return [];
    if (!isSeq(node)) {
      issue(lineOf(node.range?.[0]), "error", `${name} must be a list`);
      return [];
    }
    return node.items.filter((item): item is YAMLMap => {
      if (isMap(item)) return true;
      issue(
        lineOf((item as Node | null)?.range?.[0]),
        "error",
        `each entry of ${name} must be a mapping`,
      );
      return false;
    });
  };
  const place = (item: YAMLMap) => {
    const start = lineOf(item.range?.[0]) ?? 1;
    // range[1] is the end of the value; a trailing newline belongs to the previous line.
    const endOffset = Math.max(item.range?.[0] ?? 0, (item.range?.[1] ?? 1) - 1);
    return { start, end: Math.max(start, lineOf(endOffset) ?? start) };
  };
  const common = (item: YAMLMap, what: string, fields: string[]) => {
    const value = item.toJSON() as Record<string, unknown>;
    const { start, end } = place(item);
    const id = value["id"];
    if (typeof id !== "string" && typeof id !== "number") {
      issue(start, "error", `${what} without an id`);
      return undefined;
    }
    const key = String(id);
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      issue(start, "error", `duplicate id ${key} (also at line ${earlier})`);
      return undefined;
    }
    seen.set(key, start);
    const extra: Record<string, unknown> = {};
    for (const field of Object.keys(value)) {
      if (!fields.includes(field)) {
        extra[field] = value[field];
        issue(start, "warning", `${what} ${key}: unknown field "${field}" kept as extra`);
      }
    }
    const title = typeof value["title"] === "string" ? value["title"] : key;
    if (typeof value["title"] !== "string") issue(start, "warning", `${what} ${key} has no title`);
    return { value, key, title, start, end, extra };
  };

  for (const item of list("milestones")) {
    const c = common(item, "milestone", MILESTONE_FIELDS);
    if (c === undefined) continue;
    entities.push({
      kind: "milestone",
      key: c.key,
      title: c.title,
      status: typeof c.value["status"] === "string" ? c.value["status"] : "planned",
      raw_status: null,
      summary: stringOrNull(c.value["summary"]),
      body: stringOrNull(c.value["summary"]) ?? "",
      attributes: {
        goal: stringOrNull(c.value["goal"]),
        due: c.value["due"] ?? null,
        ...nonEmpty(c.extra),
      },
      line_start: c.start,
      line_end: c.end,
    });
  }

  for (const item of list("work_items")) {
    const c = common(item, "work item", WORK_FIELDS);
    if (c === undefined) continue;
    const v = c.value;
    const rawStatus = v["status"] === undefined ? "planned" : String(v["status"]);
    const known = (WORK_STATUSES as readonly string[]).includes(rawStatus);
    const acceptance: AcceptanceCriterion[] = [];
    for (const [index, entry] of asArray(v["acceptance"]).entries()) {
      if (typeof entry === "string") {
        acceptance.push({ id: `ac-${index + 1}`, text: entry, level: DEFAULT_ACCEPTANCE_LEVEL });
      } else if (isRecord(entry) && typeof entry["text"] === "string") {
        const level =
          typeof entry["level"] === "string" ? entry["level"] : DEFAULT_ACCEPTANCE_LEVEL;
        if (!(EVIDENCE_LEVELS as readonly string[]).includes(level)) {
          issue(
            c.start,
            "error",
            `work item ${c.key}: acceptance level "${level}" is not one of ${EVIDENCE_LEVELS.join("|")}`,
          );
        }
        acceptance.push({
          id: entry["id"] === undefined ? `ac-${index + 1}` : String(entry["id"]),
          text: entry["text"],
          level,
        });
      } else {
        issue(
          c.start,
          "error",
          `work item ${c.key}: acceptance entries are strings or {id, text, level}`,
        );
      }
    }
    for (const entry of asArray(v["depends_on"])) {
      if (typeof entry === "string" || typeof entry === "number") {
        dependencies.push({ work_key: c.key, depends_on: String(entry), required: true });
      } else if (
        isRecord(entry) &&
        (typeof entry["id"] === "string" || typeof entry["id"] === "number")
      ) {
        dependencies.push({
          work_key: c.key,
          depends_on: String(entry["id"]),
          required: entry["required"] !== false,
        });
      } else {
        issue(c.start, "error", `work item ${c.key}: depends_on entries are ids or {id, required}`);
      }
    }
    if (!known)
      issue(
        c.start,
        "warning",
        `work item ${c.key}: status "${rawStatus}" is not known; projected as unknown`,
      );
    entities.push({
      kind: "work",
      key: c.key,
      title: c.title,
      status: known ? rawStatus : "unknown",
      raw_status: known ? null : rawStatus,
      summary: stringOrNull(v["summary"]),
      body: [stringOrNull(v["summary"]), ...acceptance.map((a) => a.text)]
        .filter((s) => s !== null)
        .join("\n"),
      attributes: {
        goal: stringOrNull(v["goal"]),
        milestone: v["milestone"] === undefined ? null : String(v["milestone"]),
        required: v["required"] !== false,
        priority: v["priority"] ?? null,
        owner: stringOrNull(v["owner"]),
        acceptance,
        next_action: stringOrNull(v["next_action"]),
        blocker: stringOrNull(v["blocker"]),
        tags: asArray(v["tags"]).map(String),
        paths: asArray(v["paths"]).map(String),
        evidence: asArray(v["evidence"]),
        decisions: asArray(v["decisions"]).map(String),
        ...nonEmpty(c.extra),
      },
      line_start: c.start,
      line_end: c.end,
    });
  }
  return { entities, dependencies, issues };
}

function asArray(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringOrNull(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === "string" ? value : String(value);
}

function nonEmpty(extra: Record<string, unknown>): Record<string, unknown> {
  return Object.keys(extra).length === 0 ? {} : { extra };
}
