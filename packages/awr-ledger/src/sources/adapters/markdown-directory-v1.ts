import { yamlModule } from "../../internal/lazy-dependencies.js";
import { decisionStatus } from "./decision-status.js";
import { parseHeadingAttributes, plainHeadingText } from "./heading-attributes.js";
import {
  firstParagraph,
  frontMatter,
  type MarkdownSection,
  splitSections,
} from "./markdown-sections.js";
import type { AdapterContext, AdapterResult, SourceIssue } from "./types.js";

/** Metadata names (front matter keys and header fields), English and Chinese, and their field. */
const METADATA_NAMES: Record<string, string> = {
  status: "status",
  状态: "status",
  狀態: "status",
  date: "date",
  日期: "date",
  deciders: "deciders",
  决策者: "deciders",
  決策者: "deciders",
  id: "id",
  编号: "id",
  編號: "id",
  title: "title",
  标题: "title",
  標題: "title",
  decision: "decision",
  决策: "decision",
  決策: "decision",
  决定: "decision",
  決定: "decision",
  rationale: "rationale",
  理由: "rationale",
  affected_keys: "affected_keys",
  关联任务: "affected_keys",
  關聯任務: "affected_keys",
  paths: "paths",
  路径: "paths",
  路徑: "paths",
};
const DECISION_SECTIONS = ["decision", "decisions", "决策", "决定"];
const RATIONALE_SECTIONS = ["rationale", "context", "理由", "背景", "理由与影响", "原因"];
const LIST_FIELDS = ["affected_keys", "paths"];

class DecisionProblem extends Error {}

function canonical(name: string): string | undefined {
  return METADATA_NAMES[name.trim().toLowerCase()];
}

function same(key: string, a: unknown, b: unknown): boolean {
  if (key === "status" && typeof a === "string" && typeof b === "string") {
    return (
      a.trim().toLowerCase() === b.trim().toLowerCase() ||
      (decisionStatus(a) !== "unknown" && decisionStatus(a) === decisionStatus(b))
    );
  }
  return JSON.stringify(a) === JSON.stringify(b);
}

function put(metadata: Record<string, unknown>, key: string, value: unknown): void {
  if (key in metadata && !same(key, metadata[key], value)) {
    throw new DecisionProblem(`${key} is declared twice with different values; keep one`);
  }
  if (!(key in metadata)) metadata[key] = value;
}

/** `Status: accepted`, `- **Date:** 2026-01-01`, `状态：已接受` ... as [field, value]. */
function headerField(line: string): [string, string] | undefined {
  let text = line.trim();
  for (const bullet of ["- ", "* ", "+ "]) if (text.startsWith(bullet)) text = text.slice(2).trim();
  const colon = text.search(/[:：]/);
  if (colon < 0) return undefined;
  const rawKey = text.slice(0, colon).trim();
  let value = text.slice(colon + 1);
  if (rawKey.startsWith("**") && !rawKey.endsWith("**")) value = value.trim().replace(/^\*\*/, "");
  const key = canonical(rawKey.replace(/^[*_`]+|[*_`]+$/g, ""));
  return key === undefined
    ? undefined
    : [
        key,
        value
          .trim()
          .replace(/^`+|`+$/g, "")
          .trim(),
      ];
}

function headerFields(body: string): [string, string][] {
  const fields: [string, string][] = [];
  for (const line of body.split("\n")) {
    if (line.trim() === "") continue;
    const field = headerField(line);
    if (field === undefined) break;
    fields.push(field);
  }
  return fields;
}

function withoutHeaderFields(body: string): string {
  const lines = body.split("\n");
  const start = lines.findIndex((l) => l.trim() !== "" && headerField(l) === undefined);
  return start < 0 ? "" : lines.slice(start).join("\n").trim();
}

function titleOf(section: MarkdownSection): string {
  return plainHeadingText(parseHeadingAttributes(section.heading).title);
}

/** The bodies of the sections named `names`, each with its nested subsections. */
function sectionText(sections: MarkdownSection[], names: readonly string[]): string {
  const chosen: string[] = [];
  for (let i = 0; i < sections.length; i++) {
    const section = sections[i] as MarkdownSection;
    if (!names.includes(titleOf(section).trim().toLowerCase())) continue;
    chosen.push(section.body);
    while (i + 1 < sections.length && (sections[i + 1] as MarkdownSection).level > section.level) {
      const child = sections[++i] as MarkdownSection;
      chosen.push(`${titleOf(child)}\n\n${child.body}`);
    }
  }
  return chosen.join("\n\n").trim();
}

function text(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  throw new DecisionProblem(`${name} must be a string`);
}

function list(value: unknown, name: string): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === "string") return [value];
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value;
  throw new DecisionProblem(`${name} must be a list of strings`);
}

function readMetadata(source: string): Record<string, unknown> {
  const metadata: Record<string, unknown> = {};
  const front = frontMatter(source);
  if (front === "unterminated")
    throw new DecisionProblem("the front matter has no closing --- line");
  if (front === undefined) return metadata;
  let value: unknown;
  try {
    value = yamlModule().parse(front.yaml, { maxAliasCount: 100 });
  } catch (error) {
    throw new DecisionProblem(
      `the front matter is not valid YAML: ${(error as Error).message.split("\n")[0]}`,
    );
  }
  if (value === null || value === undefined) return metadata;
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new DecisionProblem("the front matter must be a mapping");
  }
  for (const [key, v] of Object.entries(value)) put(metadata, canonical(key) ?? key, v);
  return metadata;
}

/**
 * markdown-directory-v1: one decision per Markdown file (ADR/RFC; docs/compatibility/sources.md).
 * Metadata comes from YAML front matter (never a heading) and from `Field: value` lines right after
 * the first heading, in English or Chinese (`Status`/`状态`, `Date`/`日期`, ...); two different values
 * for one field are an error. Key: the metadata `id`, else the file's path. Title: the metadata
 * `title`, else the first heading, else the path. Status: normalised (proposed | accepted |
 * superseded | rejected, Chinese spellings included), `unknown` with a warning otherwise. The body
 * is the decision statement (a Decision/决策/决定 section, or the text after the header fields)
 * followed by its rationale (Rationale/Context/理由/背景/...).
 */
export function markdownDirectoryV1(source: string, context: AdapterContext): AdapterResult {
  const issues: SourceIssue[] = [];
  const issue = (severity: SourceIssue["severity"], message: string, line: number | null = 1) =>
    issues.push({ path: context.path, line, severity, message });
  const lines = source.split(/\r?\n/);
  if (source.trim() === "") {
    issue("error", "the decision document is empty");
    return { entities: [], dependencies: [], issues };
  }
  const sections = splitSections(source);
  const header = sections[0];
  let metadata: Record<string, unknown>;
  try {
    metadata = readMetadata(source);
    for (const [key, value] of header === undefined ? [] : headerFields(header.body)) {
      put(
        metadata,
        key,
        LIST_FIELDS.includes(key)
          ? value
              .split(/[,，;；]/)
              .map((v) => v.trim())
              .filter((v) => v !== "")
          : value,
      );
    }
    const rawStatus = text(metadata["status"], "status") ?? "";
    const status = decisionStatus(rawStatus);
    if (status === "unknown") {
      issue(
        "warning",
        rawStatus === ""
          ? "the decision has no status (front matter status: or a Status: line); projected as unknown"
          : `decision status "${rawStatus}" is not proposed|accepted|superseded|rejected; projected as unknown`,
      );
    }
    const explicit =
      text(metadata["decision"], "decision") ?? sectionText(sections, DECISION_SECTIONS);
    const decision =
      explicit.trim() !== ""
        ? explicit
        : header === undefined
          ? ""
          : withoutHeaderFields(header.body);
    if (decision.trim() === "") {
      issue(
        "warning",
        "no decision statement found (a Decision section or text after the header); read the file itself",
      );
    }
    const rationale =
      text(metadata["rationale"], "rationale") ?? sectionText(sections, RATIONALE_SECTIONS);
    const affected = list(metadata["affected_keys"], "affected_keys");
    const extra = Object.fromEntries(
      Object.entries(metadata).filter(
        ([k]) =>
          !["id", "title", "status", "decision", "rationale", "affected_keys", "paths"].includes(k),
      ),
    );
    return {
      entities: [
        {
          kind: "decision",
          key: text(metadata["id"], "id") ?? context.path,
          title:
            text(metadata["title"], "title") ??
            (header === undefined ? context.path : titleOf(header)),
          status,
          raw_status: rawStatus === status ? null : rawStatus === "" ? null : rawStatus,
          summary: firstParagraph(decision),
          body: [decision, rationale].filter((s) => s.trim() !== "").join("\n\n"),
          attributes: {
            format: "document",
            rationale: rationale === "" ? null : rationale,
            affected_keys: affected,
            work: affected.filter((k) => !k.includes("*")),
            paths: list(metadata["paths"], "paths"),
            ...extra,
          },
          line_start: 1,
          line_end: Math.max(1, lines.at(-1) === "" ? lines.length - 1 : lines.length),
        },
      ],
      dependencies: [],
      issues,
    };
  } catch (error) {
    if (!(error instanceof DecisionProblem)) throw error;
    issue("error", `decision metadata: ${error.message}`);
    return { entities: [], dependencies: [], issues };
  }
}
