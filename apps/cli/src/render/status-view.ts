import type { Colors } from "../output/style.js";
import { formatPairs, formatTable } from "../output/table.js";
import { documentLines } from "./document-view.js";
import {
  indent,
  type Result,
  type Row,
  rows,
  sourceIssueLines,
  statusColor,
  text,
} from "./view-parts.js";

/** `awr status`: the action, summary and full views of awr_project_status. */

/** A row's diagnostic codes as a dim ` [a, b]` suffix, or nothing when it has none. */
function codesSuffix(row: Row, colors: Colors): string {
  const codes = Array.isArray(row["codes"]) ? (row["codes"] as unknown[]).map(text) : [];
  return codes.length > 0 ? colors.dim(` [${codes.join(", ")}]`) : "";
}

/** A titled list of work, one `KEY  status  title [codes]` line per entry (none when empty). */
function workListing(label: string, entries: Row[], colors: Colors, more = ""): string[] {
  if (entries.length === 0) return [];
  const color = statusColor(colors);
  return [
    `${colors.bold(label)}${more}`,
    ...entries.map(
      (e) =>
        `  ${text(e["key"])}  ${color(text(e["status"]))}  ${text(e["title"])}${codesSuffix(e, colors)}`,
    ),
  ];
}

/** The headline, its label/value pairs, then the source issues. */
function headLines(
  headline: string,
  pairs: [string, string][],
  result: Result,
  colors: Colors,
): string[] {
  return [
    headline,
    ...formatPairs(pairs, colors.dim, colors.width),
    ...sourceIssueLines(result, colors),
  ];
}

/** A scoped view's headline: the project, its revision and how much of its work is selected. */
function selectionHeadline(result: Result, colors: Colors): string {
  return `${colors.bold(text(result["project"]))}  ${colors.dim(`revision ${text(result["project_revision"])} · ${text(result["total"])} selected of ${text(result["project_work_total"])}`)}`;
}

/** The action view (awr status): the four queues in a few lines, then gaps and history. */
function actionLines(result: Result, colors: Colors): string[] {
  const guidance = (result["guidance"] ?? {}) as Row;
  const history = (result["history"] ?? {}) as Row;
  const omissions = (result["omissions"] ?? {}) as Row;
  const page = result["page"] as Row | undefined;
  const queue = (name: string, label: string, total: unknown) => {
    const entries = rows(result[name]);
    const left = Number(omissions[name] ?? 0);
    const more = left > 0 ? colors.dim(` (${entries.length} of ${text(total)})`) : "";
    return workListing(label, entries, colors, more);
  };
  const lines = headLines(
    selectionHeadline(result, colors),
    [
      ["current", text(result["current_total"])],
      ["ready", text(result["ready_count"])],
      ["waiting", text(result["waiting_count"])],
      ["blocked", text(result["blocked_count"])],
      ["next action", text(result["next_action"])],
    ],
    result,
    colors,
  );
  const queues = [
    queue("current", "continue", result["current_total"]),
    queue("ready", "ready to claim", result["ready_count"]),
    queue("waiting", "waiting", result["waiting_count"]),
    queue("blocked", "blocked", result["blocked_count"]),
  ].filter((q) => q.length > 0);
  for (const q of queues) lines.push("", ...q);
  if (page !== undefined) {
    const next = page["next_offset"];
    lines.push(
      "",
      colors.dim(
        `page of ${text(page["queue"])}: ${text(page["returned"])} from ${text(page["offset"])} of ${text(page["total"])}${next === null ? "" : `; next: --offset ${text(next)}`}`,
      ),
    );
  }
  const organization = (result["organization"] ?? {}) as Row;
  const gaps = rows(organization["gaps"]);
  if (gaps.length > 0) {
    lines.push(
      "",
      `${colors.bold("gaps")} ${colors.dim(`(${text(organization["gap_sample_total"])})`)}`,
    );
    lines.push(...gaps.map((g) => `  ${colors.yellow(text(g["code"]))} ${text(g["detail"])}`));
  }
  lines.push(
    "",
    colors.dim(
      `history: ${text(history["source_completed"])} completed, ${text(history["not_checked"])} not checked, ${text(history["verification_failed"])} failed verification`,
    ),
    colors.dim(`when: ${text(guidance["when"])}; more: awr work show KEY, awr status --view full`),
  );
  return lines;
}

/** The summary view (awr status --view summary): counts, the next action, the first blockers. */
function summaryLines(result: Result, colors: Colors): string[] {
  const suggested = result["suggested_work"] as Row | null | undefined;
  const lines = headLines(
    selectionHeadline(result, colors),
    [
      ["active", text(result["current_total"])],
      ["ready", text(result["ready_count"])],
      ["not selectable", text(result["blocked_count"])],
      ["suggested", suggested ? `${text(suggested["key"])} ${text(suggested["title"])}` : "-"],
      ["next action", text(result["next_action"])],
    ],
    result,
    colors,
  );
  const current = workListing("current work", rows(result["current"]), colors);
  if (current.length > 0) lines.push("", ...current);
  const blockers = rows(result["blockers"]);
  if (blockers.length > 0) {
    lines.push("", colors.bold("not selectable"));
    lines.push(...blockers.map((b) => `  ${text(b["work"])}${codesSuffix(b, colors)}`));
  }
  lines.push("", colors.dim("more: awr status --view full; awr work show KEY"));
  return lines;
}

/** The full view (awr status --view full): the project overview. */
function fullLines(result: Result, colors: Colors): string[] {
  const counts = (result["counts"] ?? {}) as Record<string, number>;
  const color = statusColor(colors);
  const countText = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([status, n]) => `${n} ${color(status)}`)
    .join(", ");
  const suggested = result["suggested_work"] as Row | null | undefined;
  const lines = headLines(
    `${colors.bold(text(result["project"]))}  ${colors.dim(`${text(result["project_id"])} · revision ${text(result["project_revision"])}`)}`,
    [
      ["work", `${text(result["total"])} item(s)${countText ? `: ${countText}` : ""}`],
      [
        "ready",
        `${text(result["ready_count"])} (waiting on dependencies: ${text(result["dependency_blocked_count"])})`,
      ],
      ["not selectable", text(result["blocked_count"])],
      [
        "suggested",
        suggested ? `${text(suggested["external_key"])} ${text(suggested["title"])}` : "-",
      ],
      ["next action", text(result["next_action"])],
    ],
    result,
    colors,
  );
  const current = rows(result["current"]);
  if (current.length > 0) {
    const total = Number(result["current_total"] ?? current.length);
    const more = total > current.length ? colors.dim(` (${current.length} of ${total})`) : "";
    lines.push("", `${colors.bold("current work")}${more}`);
    lines.push(
      ...indent(
        formatTable(
          current,
          [
            { header: "work", value: (r) => text(r["external_key"]) },
            { header: "status", value: (r) => text(r["status"]), style: (t) => color(t) },
            { header: "title", value: (r) => text(r["title"]), shrink: true },
            { header: "next action", value: (r) => text(r["next_action"]), shrink: true },
          ],
          { header: colors.dim, width: colors.width - 2 },
        ),
      ),
    );
  }
  const gaps = rows(result["organisation_gaps"]);
  if (gaps.length > 0) {
    lines.push("", `${colors.bold("organisation gaps")} ${colors.dim(`(${gaps.length})`)}`);
    lines.push(
      ...gaps.map((gap) => `  ${colors.yellow(text(gap["gap"]))} ${text(gap["message"])}`),
    );
  }
  for (const note of rows(result["ledger_notes"])) {
    lines.push("", `${colors.bold("ledger note")} ${colors.dim(`(${text(note["label"])})`)}`);
    const current = note["current"];
    lines.push(
      ...(current !== null && typeof current === "object"
        ? documentLines(current as Row, colors, "  ")
        : [`  ${text(current)}`]),
    );
  }
  return lines;
}

/** `awr status` in the view its answer names. */
export function statusLines(result: Result, colors: Colors): string[] {
  if (result["view"] === "action") return actionLines(result, colors);
  if (result["view"] === "summary") return summaryLines(result, colors);
  return fullLines(result, colors);
}
