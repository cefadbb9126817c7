import { createHash } from "node:crypto";
import { isMap, isSeq, LineCounter, parseDocument } from "yaml";

/**
 * The YAML workstream ledger format (version 1), one workstream per file under
 * `<root>/workstreams/*.yaml`:
 *
 *   workstream_id: billing-migration   # immutable, [A-Za-z0-9._-]{1,128}
 *   authority_version: 1               # positive integer; bump to revoke existing grants
 *   title: Billing migration
 *   summary: optional text
 *   work_items:                        # id, title required; status, summary, next_action,
 *     - {id: WS-1, title: ..., status: ready, depends_on: [], acceptance: []}
 *   objects:                           # optional: id, kind, title required; body optional
 *     - {id: DEC-1, kind: decision, title: ..., body: ...}
 *   events:                            # optional: type required; time, work, session, summary
 *     - {type: note, time: 2025-01-01T00:00:00Z, work: WS-1, summary: ...}
 *
 * Anything else is refused, with the file and line, so a workstream is indexed whole or not
 * at all.
 */

export const WORKSTREAM_ACTIONS = [
  "capabilities",
  "list",
  "context",
  "catalog",
  "object",
  "events",
] as const;
export type WorkstreamAction = (typeof WORKSTREAM_ACTIONS)[number];

const NAME = /^[A-Za-z0-9._-]{1,128}$/;
const TOP = [
  "workstream_id",
  "authority_version",
  "title",
  "summary",
  "work_items",
  "objects",
  "events",
];
const ITEM = [
  "id",
  "title",
  "status",
  "summary",
  "next_action",
  "depends_on",
  "acceptance",
  "tags",
];
const OBJECT = ["id", "kind", "title", "body"];
const EVENT = ["type", "time", "work", "session", "summary"];
const STATUSES = [
  "draft",
  "planned",
  "ready",
  "claimed",
  "in_progress",
  "blocked",
  "completed",
  "cancelled",
];

export interface WorkstreamItem {
  id: string;
  title: string;
  status: string;
  summary?: string;
  next_action?: string;
  depends_on: string[];
  acceptance: string[];
  tags: string[];
}
export interface WorkstreamObject {
  id: string;
  kind: string;
  title: string;
  body?: string;
}
export interface WorkstreamEvent {
  seq: number;
  type: string;
  time?: string;
  work?: string;
  session?: string;
  summary?: string;
}
export interface Workstream {
  workstream_id: string;
  authority_version: number;
  title: string;
  summary?: string;
  /** Path relative to the project root. */
  file: string;
  /** SHA-256 of the file's bytes when indexed. */
  fingerprint: string;
  work_items: WorkstreamItem[];
  objects: WorkstreamObject[];
  events: WorkstreamEvent[];
}

/** One problem in a workstream file: which file, which line (1-based) and what. */
export interface WorkstreamProblem {
  file: string;
  line?: number;
  message: string;
}

export function fingerprintOf(bytes: string | Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

type Plain = Record<string, unknown>;

/**
 * Parses one workstream file. Returns the workstream, or the problems (every one found) with
 * lines. `file` is the path relative to the project root, used in messages and the index.
 */
export function parseWorkstream(
  file: string,
  text: string,
):
  | { workstream: Workstream; problems: [] }
  | { workstream?: undefined; problems: WorkstreamProblem[] } {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  const problems: WorkstreamProblem[] = [];
  const lineOf = (offset: number | undefined) =>
    offset === undefined ? undefined : lines.linePos(offset).line;
  for (const error of doc.errors) {
    problems.push({
      file,
      line: lineOf(error.pos[0]),
      message: error.message.split("\n")[0] ?? "",
    });
  }
  if (problems.length > 0) return { problems };

  // Line of a node found by path, for messages about values that parsed but are invalid.
  const at = (path: (string | number)[]): number | undefined => {
    const node = doc.getIn(path, true) as { range?: [number, number, number] } | undefined;
    return lineOf(node?.range?.[0]);
  };
  const problem = (path: (string | number)[], message: string) =>
    problems.push({ file, line: at(path), message: `${path.join(".") || "document"}: ${message}` });

  if (!isMap(doc.contents)) {
    problems.push({ file, line: 1, message: "the document must be a mapping with workstream_id" });
    return { problems };
  }
  const root = doc.toJS() as Plain;
  const checkFields = (value: Plain, allowed: string[], path: (string | number)[]) => {
    for (const key of Object.keys(value)) {
      if (!allowed.includes(key))
        problem([...path, key], `unknown field (allowed: ${allowed.join(", ")})`);
    }
  };
  const str = (value: Plain, key: string, path: (string | number)[], required: boolean) => {
    const v = value[key];
    if (v === undefined || v === null) {
      if (required) problem([...path, key], "missing");
      return undefined;
    }
    if (typeof v !== "string" && typeof v !== "number") {
      problem([...path, key], "must be a string");
      return undefined;
    }
    return String(v);
  };
  const strings = (value: Plain, key: string, path: (string | number)[]) => {
    const v = value[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) {
      problem([...path, key], "must be a list of strings");
      return [];
    }
    return v as string[];
  };
  const records = (key: string): Plain[] => {
    const node = doc.get(key, true);
    if (node === undefined || node === null) return [];
    if (!isSeq(node)) {
      problem([key], "must be a list");
      return [];
    }
    const list = (root[key] ?? []) as unknown[];
    return list.flatMap((entry, i) => {
      if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
        problem([key, i], "must be a mapping");
        return [];
      }
      return [entry as Plain];
    });
  };

  checkFields(root, TOP, []);
  const workstream_id = str(root, "workstream_id", [], true) ?? "";
  if (workstream_id !== "" && !NAME.test(workstream_id)) {
    problem(
      ["workstream_id"],
      `"${workstream_id}" is not a valid id (1 to 128 of A-Z a-z 0-9 . _ -)`,
    );
  }
  const version = root["authority_version"];
  if (typeof version !== "number" || !Number.isSafeInteger(version) || version < 1) {
    problem(["authority_version"], "must be a positive integer");
  }
  const title = str(root, "title", [], true) ?? "";
  const summary = str(root, "summary", [], false);

  const seen = new Set<string>();
  const work_items = records("work_items").map((item, i): WorkstreamItem => {
    const path = ["work_items", i];
    checkFields(item, ITEM, path);
    const id = str(item, "id", path, true) ?? "";
    if (id !== "" && seen.has(id)) problem([...path, "id"], `duplicate id "${id}"`);
    seen.add(id);
    const status = str(item, "status", path, false) ?? "planned";
    if (!STATUSES.includes(status)) problem([...path, "status"], `unknown status "${status}"`);
    const entry: WorkstreamItem = {
      id,
      title: str(item, "title", path, true) ?? "",
      status,
      depends_on: strings(item, "depends_on", path),
      acceptance: strings(item, "acceptance", path),
      tags: strings(item, "tags", path),
    };
    const s = str(item, "summary", path, false);
    if (s !== undefined) entry.summary = s;
    const next = str(item, "next_action", path, false);
    if (next !== undefined) entry.next_action = next;
    return entry;
  });
  const objects = records("objects").map((object, i): WorkstreamObject => {
    const path = ["objects", i];
    checkFields(object, OBJECT, path);
    const id = str(object, "id", path, true) ?? "";
    if (id !== "" && seen.has(id)) problem([...path, "id"], `duplicate id "${id}"`);
    seen.add(id);
    const entry: WorkstreamObject = {
      id,
      kind: str(object, "kind", path, true) ?? "",
      title: str(object, "title", path, true) ?? "",
    };
    const body = str(object, "body", path, false);
    if (body !== undefined) entry.body = body;
    return entry;
  });
  const events = records("events").map((event, i): WorkstreamEvent => {
    const path = ["events", i];
    checkFields(event, EVENT, path);
    const entry: WorkstreamEvent = { seq: i + 1, type: str(event, "type", path, true) ?? "" };
    for (const key of ["time", "work", "session", "summary"] as const) {
      const value =
        event[key] instanceof Date
          ? (event[key] as Date).toISOString()
          : str(event, key, path, false);
      if (value !== undefined) entry[key] = value;
    }
    return entry;
  });

  if (problems.length > 0) return { problems };
  const workstream: Workstream = {
    workstream_id,
    authority_version: version as number,
    title,
    file,
    fingerprint: fingerprintOf(text),
    work_items,
    objects,
    events,
  };
  if (summary !== undefined) workstream.summary = summary;
  return { workstream, problems: [] };
}
