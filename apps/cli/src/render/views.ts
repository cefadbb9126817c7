import type { Colors } from "../output/style.js";
import { formatPairs, formatTable } from "../output/table.js";
import { documentLines, labelOf, sectionLines } from "./document-view.js";
import { statusLines } from "./status-view.js";
import {
  type Result,
  type Row,
  revisionLine,
  rows,
  sourceIssueLines,
  statusColor,
  text,
  without,
} from "./view-parts.js";

/**
 * Human views of the domain JSON. Each leads with what a person looks for first and then
 * shows the remaining fields through the generic document view, so nothing is hidden.
 */

export function readyLines(result: Result, colors: Colors): string[] {
  const items = rows(result["ready"]);
  const total = Number(result["ready_total"] ?? 0);
  const lines = [
    `${colors.bold(`${total} ready`)}${items.length < total ? colors.dim(` (showing ${items.length}; raise --limit for more)`) : ""}  ${colors.dim(`${text(result["blocked_total"])} not selectable`)}  ${revisionLine(result, colors)}`,
  ];
  if (items.length === 0) {
    lines.push("Nothing is ready: see `awr status` for blocked work and next actions.");
  } else {
    lines.push(
      ...formatTable(
        items,
        [
          { header: "work", value: (r) => text(r["external_key"]) },
          { header: "prio", value: (r) => text(r["priority"]) },
          { header: "title", value: (r) => text(r["title"]), shrink: true },
          { header: "next action", value: (r) => text(r["next_action"]), shrink: true },
        ],
        { header: colors.dim, width: colors.width },
      ),
    );
    for (const item of items) {
      for (const diagnostic of rows(item["diagnostics"])) {
        lines.push(
          `${colors.yellow("note")} ${text(item["external_key"])}: ${text(diagnostic["detail"])}`,
        );
      }
    }
  }
  const reasons = Object.entries((result["diagnostic_counts"] ?? {}) as Record<string, number>);
  if (reasons.length > 0) {
    const list = reasons.map(([code, n]) => `${code} ${n}`).join(", ");
    lines.push(colors.dim(`not selectable because: ${list}`));
  }
  lines.push(...sourceIssueLines(result, colors));
  return lines;
}

export function searchLines(result: Result, colors: Colors): string[] {
  const hits = rows(result["hits"]);
  const query = result["query"] as Row | undefined;
  if (hits.length === 0) return [`no results for "${text(query?.["text"])}"`];
  return formatTable(
    hits,
    [
      { header: "kind", value: (r) => text(r["kind"]) },
      { header: "key", value: (r) => text(r["external_key"]) },
      { header: "title", value: (r) => text(r["title"]), shrink: true },
      { header: "match", value: (r) => text(r["snippet"]), shrink: true },
    ],
    { header: colors.dim, width: colors.width },
  );
}

/** A linked goal or milestone as one line: its key, title and status. */
function linkedLine(name: string, key: unknown, linked: unknown, colors: Colors): string | null {
  if (key === null || key === undefined) return null;
  const entity = linked !== null && typeof linked === "object" ? (linked as Row) : undefined;
  const about =
    entity === undefined ? "" : ` — ${text(entity["title"])} [${text(entity["status"])}]`;
  return `  ${colors.dim(name)}  ${text(key)}${about}`;
}

/** The item first, its goal and milestone once each, then the rest of the answer. */
export function workLines(result: Result, colors: Colors): string[] {
  const work = result["work"];
  if (work === null || typeof work !== "object") return documentLines(result, colors);
  const item = work as Row;
  const color = statusColor(colors);
  const head = [
    `${colors.bold(`${text(item["work"])}  ${text(item["title"])}`)}  ${color(text(item["status"]))}  ${revisionLine(result, colors)}`,
    linkedLine("goal", item["goal"], result["goal"], colors),
    linkedLine("milestone", item["milestone"], result["milestone"], colors),
  ].filter((line): line is string => line !== null);
  // `goals` repeats `goal` unless the item names more than one.
  const goals = item["goals"];
  const onlyGoal = Array.isArray(goals) && goals.length <= 1 && (goals[0] ?? null) === item["goal"];
  const rest = without(
    item,
    "work",
    "title",
    "status",
    "id",
    "goal",
    "milestone",
    ...(onlyGoal ? ["goals"] : []),
  );
  return [
    ...head,
    ...documentLines(rest, colors, "  "),
    ...documentLines(without(result, "work", "goal", "milestone", "project_revision"), colors),
  ];
}

/** The rendered packet is what a person wants to read; the metadata follows it. */
export function contextLines(result: Result, colors: Colors): string[] {
  const packet = result["work_context"] as Result | null | undefined;
  const rendered = packet?.["rendered_context"] ?? result["diagnostic_text"];
  if (typeof rendered !== "string") return documentLines(result, colors);
  const completeness = result["completeness"] as Result | undefined;
  return [
    rendered.trimEnd(),
    "",
    colors.dim("---"),
    ...documentLines(
      {
        tokens: packet ? `${packet["token_estimate"]} of ${packet["token_budget"]}` : null,
        context_hash: packet?.["context_hash"] ?? null,
        status: completeness?.["status"],
        issues: completeness?.["issues"],
        continuity: result["continuity"],
      },
      colors,
    ),
  ];
}

/**
 * `awr work prepare`: what to do first (the action view's guidance card, or the stage and next
 * action), then the rendered packet, then the rest of the answer.
 */
export function prepareLines(result: Result, colors: Colors): string[] {
  const guidance = result["guidance"] as Result | undefined;
  const head =
    guidance === undefined
      ? formatPairs([
          ["stage", text(result["stage"])],
          ["ready", text(result["ready"])],
          ["next action", text(result["next_action"])],
        ])
      : formatPairs([
          ["stage", text(result["stage"])],
          ["when", text(guidance["when"])],
          ["basis", text(guidance["basis"])],
          ["next", text(guidance["next_action"])],
          ["recheck", text(guidance["recheck"])],
        ]);
  const context = (result["context"] ?? {}) as Result;
  const packet = context["work_context"] as Result | null | undefined;
  const rendered = packet?.["rendered_context"] ?? context["diagnostic_text"];
  const rest = without(result, "stage", "guidance", "next_action", "context");
  return [
    ...head,
    ...(typeof rendered === "string" ? ["", rendered.trimEnd()] : []),
    "",
    colors.dim("---"),
    ...documentLines(
      {
        tokens: packet ? `${packet["token_estimate"]} of ${packet["token_budget"]}` : null,
        context_hash: packet?.["context_hash"] ?? null,
        status: (context["completeness"] as Result | undefined)?.["status"],
        ...rest,
      },
      colors,
    ),
  ];
}

/** L0: the rendered packet, then its size, hash and the gaps that make it incomplete. */
export function bootstrapLines(result: Result, colors: Colors): string[] {
  const rendered = result["rendered_context"];
  if (typeof rendered !== "string") return documentLines(result, colors);
  const packet = (result["context"] ?? {}) as Result;
  return [
    rendered.trimEnd(),
    "",
    colors.dim("---"),
    ...documentLines(
      {
        tokens: `${text(result["token_estimate"])} of ${text(result["token_budget"])}`,
        context_hash: result["context_hash"],
        complete: packet["complete"],
        gaps: packet["gaps"],
        continuity: result["continuity"],
      },
      colors,
    ),
  ];
}

/** The fields a person does not read: the answer's status and its read policy. */
const POLICY = ["ok", "freshness_basis", "source_refresh_performed", "read_only"];

/** A read's human view: the command's own, or the generic document view. */
export function readView(view: string | undefined, result: Result, colors: Colors): string[] {
  const shown = without(result, ...POLICY);
  switch (view) {
    case "status":
      return statusLines(shown, colors);
    case "ready":
      return readyLines(shown, colors);
    case "work":
      return workLines(shown, colors);
    case "search":
      return searchLines(shown, colors);
    case "context":
      return contextLines(shown, colors);
    case "prepare":
      return prepareLines(shown, colors);
    default:
      return documentLines(shown, colors);
  }
}

/** One line saying which revisions a write spent and why (docs/troubleshooting.md#revisions). */
export function spentLine(result: Result, checkedAt: number): string {
  const now = Number(result["project_revision"]);
  if (result["replayed"] === true) return `revision ${now}: replayed, nothing ran or was spent`;
  const spent = now - checkedAt;
  if (spent <= 0) return `revision ${now}: nothing changed, no revision spent`;
  const why =
    typeof result["request_id"] === "string"
      ? "journaled under --request-id: started, the change, finished"
      : "the change itself; with --request-id a write is journaled: 3 revisions, safe to retry";
  return `revision ${checkedAt} → ${now}: spent ${spent}, ${why}`;
}

/** A write's human view: the headline, what it spent, and what changed. */
export function writeLines(
  result: Result,
  colors: Colors,
  headline: string,
  checkedAt: number,
): string[] {
  const [first, ...rest] = transitionLines(without(result, ...POLICY), colors, headline);
  return [first ?? "", `  ${colors.dim(spentLine(result, checkedAt))}`, ...rest];
}

/** `awr work list`: one aligned row per item. */
export function workListLines(result: Result, colors: Colors): string[] {
  const items = rows(result["items"]);
  if (items.length === 0) return ["no work items match"];
  const color = statusColor(colors);
  return formatTable(
    items,
    [
      { header: "work", value: (r) => text(r["work"]) },
      { header: "status", value: (r) => text(r["status"]), style: (t) => color(t) },
      { header: "title", value: (r) => text(r["title"]), shrink: true },
      { header: "goal", value: (r) => text(r["goal"]) },
      { header: "milestone", value: (r) => text(r["milestone"]) },
      { header: "next action", value: (r) => text(r["next_action"]), shrink: true },
    ],
    { header: colors.dim, width: colors.width },
  );
}

/** One line for a nested object of a write result: what it is and its state. */
function compactObject(value: Row): string {
  if (typeof value["previous_status"] === "string" && typeof value["status"] === "string") {
    const moved =
      value["previous_status"] === value["status"]
        ? value["status"]
        : `${value["previous_status"]} → ${value["status"]}`;
    return `${text(value["work"] ?? value["id"])} ${moved}`;
  }
  const parts = [
    "work",
    "external_key",
    "id",
    "conversation",
    "type",
    "level",
    "status",
    "question",
  ]
    .map((key) => value[key])
    .filter((part) => typeof part === "string" && part !== "");
  return parts.length > 0 ? parts.join("  ") : JSON.stringify(value);
}

/**
 * A write's result: a headline with the new revision, the scalar fields, one line per nested
 * object (the full document is one `--json` away), and tables for lists.
 */
export function transitionLines(result: Result, colors: Colors, headline: string): string[] {
  const replayed =
    result["replayed"] === true
      ? colors.yellow(" (replayed: recorded earlier, nothing ran again)")
      : "";
  const pairs: [string, string][] = [];
  const lists: [string, unknown][] = [];
  for (const [key, value] of Object.entries(
    without(result, "project_revision", "replayed", "terminal_event", "code", "error"),
  )) {
    if (Array.isArray(value) && value.some((item) => item !== null && typeof item === "object"))
      lists.push([key, value]);
    else if (value !== null && typeof value === "object" && !Array.isArray(value))
      pairs.push([labelOf(key), compactObject(value as Row)]);
    else pairs.push([labelOf(key), text(value)]);
  }
  return [
    `${colors.green("✓")} ${headline}${replayed}`,
    ...formatPairs(pairs, colors.dim, colors.width - 2).map((line) => `  ${line}`),
    ...lists.flatMap(([key, value]) => sectionLines(key, value, colors, "  ")),
  ];
}

export { sectionLines };
