import type { Colors } from "../output/style.js";
import { scalarText } from "./document-view.js";

/** The pieces the human views are drawn from: loose JSON rows, texts, status colours. */
export type Result = Record<string, unknown>;
export type Row = Record<string, unknown>;

/** `result` without the fields named. */
export function without(result: Result, ...keys: string[]): Result {
  const rest: Result = {};
  for (const [key, value] of Object.entries(result)) if (!keys.includes(key)) rest[key] = value;
  return rest;
}

export function indent(lines: string[]): string[] {
  return lines.map((line) => `  ${line}`);
}

export function revisionLine(result: Result, colors: Colors): string {
  return colors.dim(`revision ${String(result["project_revision"] ?? "?")}`);
}

/** The objects of a list (anything else in it, or a value that is no list, gives none). */
export function rows(value: unknown): Row[] {
  return Array.isArray(value)
    ? value.filter((v): v is Row => v !== null && typeof v === "object")
    : [];
}

export function text(value: unknown): string {
  return scalarText(value);
}

/** Colours a work status so the eye finds what moves and what is stuck. */
export function statusColor(colors: Colors): (status: string) => string {
  return (status) => {
    if (status === "completed") return colors.green(status);
    if (status === "blocked" || status === "unknown") return colors.red(status);
    if (status === "in_progress" || status === "claimed") return colors.cyan(status);
    if (status === "ready") return colors.yellow(status);
    return status;
  };
}

/**
 * The answer's source issues (a source indexed as missing), first thing after the summary: the
 * counts above leave out what such a source holds.
 */
export function sourceIssueLines(result: Result, colors: Colors): string[] {
  const issues = rows(result["source_issues"]);
  if (issues.length === 0) return [];
  return [
    "",
    `${colors.bold("source issues")} ${colors.dim(`(${issues.length})`)}`,
    ...issues.map(
      (issue) =>
        `  ${colors.yellow(text(issue["severity"]))} ${text(issue["path"])}: ${text(issue["message"])}`,
    ),
  ];
}
