import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { LedgerError } from "../errors.js";
import { yamlModule } from "../internal/lazy-dependencies.js";

/**
 * The per-file workstream format of this implementation's earlier builds, read only to convert
 * it (`awr workstream migrate`): one `workstreams/*.yaml` file per stream with `workstream_id`,
 * `authority_version`, `title`, optional `summary`, `work_items` (id, title, status, summary,
 * next_action, depends_on, acceptance, tags), `objects` and `events`.
 */
export const EARLIER_DIR = "workstreams";
const NAME = /^[A-Za-z0-9._-]{1,128}$/;
const ITEM_FIELDS = [
  "id",
  "title",
  "status",
  "summary",
  "next_action",
  "depends_on",
  "acceptance",
  "tags",
];

export interface EarlierWorkstream {
  file: string;
  workstream_id: string;
  authority_version: number;
  title: string;
  work_items: Record<string, unknown>[];
  objects: number;
  events: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Every earlier-format file of the project (none: an empty list), all valid or refused. */
export function readEarlierWorkstreams(root: string): EarlierWorkstream[] {
  let names: string[];
  try {
    names = readdirSync(join(root, EARLIER_DIR));
  } catch {
    return [];
  }
  const { LineCounter, parseDocument } = yamlModule();
  const problems: string[] = [];
  const out: EarlierWorkstream[] = [];
  for (const name of names.filter((n) => /\.ya?ml$/.test(n)).sort()) {
    const file = `${EARLIER_DIR}/${name}`;
    const lines = new LineCounter();
    const doc = parseDocument(readFileSync(join(root, file), "utf8"), { lineCounter: lines });
    const at = (path: (string | number)[]) => {
      const node = doc.getIn(path, true) as { range?: [number] } | undefined;
      return node?.range === undefined ? "" : `:${lines.linePos(node.range[0]).line}`;
    };
    const problem = (path: (string | number)[], message: string) =>
      problems.push(`${file}${at(path)}: ${message}`);
    if (doc.errors.length > 0) {
      problems.push(`${file}: ${doc.errors[0]?.message.split("\n")[0]}`);
      continue;
    }
    const data = doc.toJS({ maxAliasCount: 100 }) as unknown;
    if (!isRecord(data)) {
      problem([], "not a workstream file (a mapping with workstream_id)");
      continue;
    }
    const id = data["workstream_id"];
    if (typeof id !== "string" || !NAME.test(id))
      problem(["workstream_id"], "workstream_id must be a name");
    const version = data["authority_version"];
    if (typeof version !== "number" || !Number.isSafeInteger(version) || version < 1) {
      problem(["authority_version"], "authority_version must be a positive integer");
    }
    const items = Array.isArray(data["work_items"]) ? data["work_items"] : [];
    items.forEach((item, i) => {
      if (!isRecord(item) || typeof item["id"] !== "string" || typeof item["title"] !== "string") {
        problem(["work_items", i], "each work item needs an id and a title");
        return;
      }
      const unknown = Object.keys(item).filter((k) => !ITEM_FIELDS.includes(k));
      if (unknown.length > 0) problem(["work_items", i], `unknown field(s) ${unknown.join(", ")}`);
    });
    out.push({
      file,
      workstream_id: String(id),
      authority_version: Number(version),
      title: typeof data["title"] === "string" ? data["title"] : String(id),
      work_items: items as Record<string, unknown>[],
      objects: Array.isArray(data["objects"]) ? data["objects"].length : 0,
      events: Array.isArray(data["events"]) ? data["events"].length : 0,
    });
  }
  if (problems.length > 0) {
    throw new LedgerError(
      "InvalidInput",
      `The earlier workstream files cannot be converted:\n${problems.join("\n")}\nFix them and run \`awr workstream migrate\` again; nothing was changed.`,
      { problems },
    );
  }
  return out;
}
