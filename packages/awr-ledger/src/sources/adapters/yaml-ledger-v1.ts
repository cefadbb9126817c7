import type { Node, Pair, YAMLMap } from "yaml";
import { yamlModule } from "../../internal/lazy-dependencies.js";
import { type LedgerMapping, ledgerMapping } from "./ledger-mapping.js";
import type { LedgerRecord } from "./ledger-record.js";
import type {
  AdapterContext,
  AdapterResult,
  ParsedDependency,
  ParsedEntity,
  SourceIssue,
} from "./types.js";
import { workItemEntity } from "./yaml-work-item.js";

export type { LedgerRecord } from "./ledger-record.js";
export { WORK_STATUSES, type WorkStatus } from "./work-status.js";
export {
  type AcceptanceCriterion,
  DEFAULT_ACCEPTANCE_LEVEL,
  EVIDENCE_LEVELS,
} from "./yaml-work-item.js";

/** The three lists of a ledger, in the order they are projected. */
const LISTS = ["goals", "milestones", "work_items"] as const;
type ListName = (typeof LISTS)[number];

export type IssueSink = (
  line: number | null,
  severity: SourceIssue["severity"],
  message: string,
) => void;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A parsed ledger: the adapter result, the document as data, and the line of any node. */
export interface YamlLedgerRead {
  result: AdapterResult;
  /** The document as plain data; undefined when it could not be read (see result.issues). */
  data: Record<string, unknown> | undefined;
  /** 1-based line of the node at `path` (e.g. `["workstreams", "definitions", 0, "id"]`). */
  lineAt(path: readonly (string | number)[]): number | null;
}

/**
 * yaml-ledger-v1 (docs/compatibility/sources.md): a YAML mapping with `work_items`, `milestones`
 * and `goals`, each a list of records keyed by `id` (or `external_key`), or a map keyed by the
 * external key. Every other top-level key (`schema_version`, `contract_id`, `project`,
 * `scenarios`, ...) is accepted quietly, except `workstreams:`, which only
 * yaml-workstream-ledger-v1 reads (here it is refused as Unsupported, never dropped); the
 * `current:` block, which is not projected, is kept as the ledger's own note
 * (`note.current`) for `status` to show as such.
 */
export function yamlLedgerV1(text: string, context: AdapterContext): AdapterResult {
  const read = readYamlLedger(text, context);
  if (read.data?.["workstreams"] !== undefined) {
    read.result.issues.push({
      path: context.path,
      line: read.lineAt(["workstreams"]),
      severity: "error",
      code: "Unsupported",
      message:
        'the ledger declares workstreams:, which adapter yaml-ledger-v1 does not read; set adapter = "yaml-workstream-ledger-v1" for this source in .awr/project.toml (on a project already initialised, `awr workstream enable` does that)',
    });
  }
  return read.result;
}

/**
 * Reads a yaml-ledger-v1 document (the item parsing yaml-workstream-ledger-v1 shares). Parsed
 * with the yaml package's document API and a LineCounter, so every entity carries its line range
 * and every problem its line; aliases expand to at most 100 nodes (an alias bomb is an error,
 * not a hang).
 */
export function readYamlLedger(text: string, context: AdapterContext): YamlLedgerRead {
  const { isMap, LineCounter, parseDocument } = yamlModule();
  const issues: SourceIssue[] = [];
  const entities: ParsedEntity[] = [];
  const dependencies: ParsedDependency[] = [];
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const lineOf = (offset: number | undefined) =>
    offset === undefined ? null : lineCounter.linePos(offset).line;
  const lineAt = (path: readonly (string | number)[]) => {
    // A mapping key's own line (where `key:` is written), else the node's first line.
    const parent = path.length === 0 ? undefined : doc.getIn(path.slice(0, -1), true);
    const last = path.at(-1);
    if (isMap(parent) && typeof last === "string") {
      const pair = parent.items.find((p) => (p.key as Node | null)?.toJSON?.() === last);
      const line = lineOf((pair?.key as Node | null | undefined)?.range?.[0]);
      if (line !== null) return line;
    }
    const node = doc.getIn(path, true) as Node | undefined;
    return lineOf(node?.range?.[0]);
  };
  const issue: IssueSink = (line, severity, message) =>
    issues.push({ path: context.path, line, severity, message });
  const result = (
    data?: Record<string, unknown>,
    note?: Record<string, unknown>,
  ): YamlLedgerRead => ({
    result:
      note === undefined
        ? { entities, dependencies, issues }
        : { entities, dependencies, issues, note },
    data,
    lineAt,
  });
  for (const error of doc.errors)
    issue(lineOf(error.pos[0]), "error", error.message.split("\n")[0] ?? "invalid YAML");
  if (doc.errors.length > 0) return result();
  const root = doc.contents;
  if (root === null || (isMap(root) && root.items.length === 0)) return result({});
  if (!isMap(root)) {
    issue(
      lineOf(root.range?.[0]),
      "error",
      "the work ledger must be a mapping with work_items:, milestones: or goals:",
    );
    return result();
  }
  let data: Record<string, unknown>;
  try {
    data = doc.toJS({ maxAliasCount: 100 }) as Record<string, unknown>;
  } catch (error) {
    issue(
      null,
      "error",
      `the ledger's YAML aliases expand to too much data (${(error as Error).message}); write the values out instead of aliasing them`,
    );
    return result();
  }
  let mapping: LedgerMapping;
  try {
    mapping = ledgerMapping(context.options);
  } catch (error) {
    issue(null, "error", (error as Error).message);
    return result(data);
  }
  if (!LISTS.some((name) => data[name] !== undefined)) {
    issue(
      null,
      "warning",
      "the ledger has no work_items:, milestones: or goals:; it contributes nothing",
    );
  }
  const seen = new Map<string, number>();
  const records = (name: ListName) =>
    listRecords(root, data[name], name, mapping, lineOf, issue, seen);
  for (const record of records("goals")) entities.push(goalEntity(record));
  for (const record of records("milestones")) entities.push(milestoneEntity(record));
  for (const record of records("work_items")) {
    const parsed = workItemEntity(record, mapping, (severity, message) =>
      issue(record.line_start, severity, message),
    );
    if (parsed === undefined) continue;
    entities.push(parsed.entity);
    dependencies.push(...parsed.dependencies);
  }
  return isRecord(data["current"]) ? result(data, { current: data["current"] }) : result(data);
}

/** The records of one list (or keyed map), with their lines; bad entries are reported. */
function listRecords(
  root: YAMLMap,
  value: unknown,
  name: ListName,
  mapping: LedgerMapping,
  lineOf: (offset: number | undefined) => number | null,
  issue: IssueSink,
  seen: Map<string, number>,
): LedgerRecord[] {
  if (value === undefined || value === null) return [];
  const { isMap, isSeq } = yamlModule();
  const node = root.get(name, true) as Node | undefined;
  const place = (start: Node | null | undefined, end: Node | null | undefined) => {
    const line = lineOf(start?.range?.[0]) ?? 1;
    // range[1] is the end of the value; a trailing newline belongs to the previous line.
    const endOffset = Math.max(end?.range?.[0] ?? 0, (end?.range?.[1] ?? 1) - 1);
    return { line_start: line, line_end: Math.max(line, lineOf(endOffset) ?? line) };
  };
  const what = name === "work_items" ? "work item" : name === "goals" ? "goal" : "milestone";
  const entries: { fallback?: string; item: unknown; at: ReturnType<typeof place> }[] = [];
  if (Array.isArray(value) && isSeq(node)) {
    value.forEach((item, i) => {
      const itemNode = node.items[i] as Node | null;
      entries.push({ item, at: place(itemNode, itemNode) });
    });
  } else if (isRecord(value) && isMap(node)) {
    for (const pair of node.items as Pair<Node, Node | null>[]) {
      const fallback = String((pair.key as Node | null)?.toJSON?.() ?? pair.key);
      entries.push({
        fallback,
        item: value[fallback],
        at: place(pair.key, pair.value ?? pair.key),
      });
    }
  } else {
    issue(
      lineOf(node?.range?.[0]),
      "error",
      `${name} must be a list or a map keyed by the external key`,
    );
    return [];
  }
  const out: LedgerRecord[] = [];
  for (const { fallback, item, at } of entries) {
    if (!isRecord(item)) {
      issue(at.line_start, "error", `each entry of ${name} must be a mapping`);
      continue;
    }
    let record = item;
    try {
      if (name === "work_items") record = mapping.rename(item);
    } catch (error) {
      issue(at.line_start, "error", (error as Error).message);
      continue;
    }
    const id = record["id"];
    const external = record["external_key"];
    if (id !== undefined && external !== undefined && String(id) !== String(external)) {
      issue(
        at.line_start,
        "error",
        `${what}: id ${String(id)} and external_key ${String(external)} differ; keep one`,
      );
      continue;
    }
    const written = external ?? id;
    if (written !== undefined && typeof written !== "string" && typeof written !== "number") {
      issue(at.line_start, "error", `${what}: id must be a string`);
      continue;
    }
    const key = written === undefined ? fallback : String(written);
    if (key === undefined || key.trim() === "") {
      issue(at.line_start, "error", `${what} without an id`);
      continue;
    }
    if (fallback !== undefined && written !== undefined && fallback !== key) {
      issue(
        at.line_start,
        "error",
        `${what} under map key ${fallback} has id ${key}; the map key and the id must be the same`,
      );
      continue;
    }
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      issue(
        at.line_start,
        "error",
        `duplicate id ${key} (also at line ${earlier}); give one of them another id`,
      );
      continue;
    }
    seen.set(key, at.line_start);
    out.push({ key, value: record, ...at });
  }
  return out;
}

function str(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === "string" ? value : String(value);
}

function strings(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

function rest(value: Record<string, unknown>, known: readonly string[]): Record<string, unknown> {
  const extra = Object.fromEntries(Object.entries(value).filter(([k]) => !known.includes(k)));
  return Object.keys(extra).length === 0 ? {} : { extra };
}

const GOAL_FIELDS = [
  "id",
  "external_key",
  "title",
  "status",
  "priority",
  "summary",
  "success_criteria",
  "acceptance",
];
const MILESTONE_FIELDS = [
  "id",
  "external_key",
  "title",
  "name",
  "status",
  "summary",
  "goal",
  "due",
  "scope",
  "acceptance",
  "success_criteria",
];

/** A ledger goal: a goal entity, as a Markdown goal would be. */
function goalEntity(record: LedgerRecord): ParsedEntity {
  const v = record.value;
  const summary = str(v["summary"]);
  const criteria = strings(v["success_criteria"] ?? v["acceptance"]);
  return {
    kind: "goal",
    key: record.key,
    title: str(v["title"]) ?? record.key,
    status: (str(v["status"]) ?? "active").toLowerCase(),
    raw_status: null,
    summary,
    body: [summary, ...criteria].filter((s) => s !== null).join("\n"),
    attributes: {
      priority: v["priority"] ?? null,
      success_criteria: criteria,
      ...rest(v, GOAL_FIELDS),
    },
    line_start: record.line_start,
    line_end: record.line_end,
  };
}

/** A milestone: a plan entry with `kind: milestone`. */
function milestoneEntity(record: LedgerRecord): ParsedEntity {
  const v = record.value;
  const summary = str(v["summary"]);
  const acceptance = strings(v["acceptance"] ?? v["success_criteria"]);
  return {
    kind: "milestone",
    key: record.key,
    title: str(v["title"]) ?? str(v["name"]) ?? record.key,
    status: (str(v["status"]) ?? "planned").toLowerCase(),
    raw_status: null,
    summary,
    body: [summary, ...acceptance].filter((s) => s !== null).join("\n"),
    attributes: {
      plan_kind: "milestone",
      goal: str(v["goal"]),
      due: v["due"] ?? null,
      scope: strings(v["scope"]),
      acceptance,
      ...rest(v, MILESTONE_FIELDS),
    },
    line_start: record.line_start,
    line_end: record.line_end,
  };
}
