import type { EntityKind } from "../../storage/schema.js";
import { parseHeadingAttributes, slugify } from "./heading-attributes.js";
import { firstParagraph, splitSections } from "./markdown-sections.js";
import type { AdapterContext, AdapterResult, ParsedEntity, SourceIssue } from "./types.js";

export const DECISION_STATUSES = ["proposed", "accepted", "superseded", "rejected"] as const;
export const RULE_SEVERITIES = ["hard", "soft", "info"] as const;

/** Default status of a heading entity without `status=`, by kind. */
const DEFAULT_STATUS: Record<string, string> = {
  goal: "active",
  plan: "active",
  decision: "proposed",
  rule: "active",
};

export interface HeadingAdapterMode {
  rules: boolean;
}

/**
 * markdown-heading-v1 (goals, plan, decisions) and markdown-rules-v1 (rules): one entity per
 * heading. A lone first `#` heading is the document title, not an entity (option
 * `title_heading = false` turns that off). Key: `<key_prefix>#<key>` from `{#key}`, else a slug of
 * the heading text; `key_prefix` defaults to the domain. Nested headings record their parent key.
 */
export function parseMarkdownHeadings(
  text: string,
  context: AdapterContext,
  mode: HeadingAdapterMode,
): AdapterResult {
  const kind = context.domain as EntityKind;
  const prefix =
    typeof context.options["key_prefix"] === "string" ? context.options["key_prefix"] : kind;
  const sections = splitSections(text);
  const issues: SourceIssue[] = [];
  const entities: ParsedEntity[] = [];
  const titleHeading = context.options["title_heading"] !== false;
  const h1s = sections.filter((s) => s.level === 1).length;
  const skipFirst = titleHeading && sections[0]?.level === 1 && h1s === 1;
  const seen = new Map<string, number>();
  const parents: { level: number; key: string }[] = [];
  sections.forEach((section, index) => {
    if (index === 0 && skipFirst) return;
    const attrs = parseHeadingAttributes(section.heading);
    const issue = (severity: SourceIssue["severity"], message: string) =>
      issues.push({ path: context.path, line: section.line_start, severity, message });
    if (attrs.problem !== undefined) issue("error", attrs.problem);
    const local = attrs.key ?? slugify(attrs.title);
    const key = local.includes("#") ? local : `${prefix}#${local}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      issue("error", `duplicate key ${key} (also at line ${earlier}); give one heading a {#key}`);
      return;
    }
    seen.set(key, section.line_start);
    while (parents.length > 0 && (parents.at(-1)?.level ?? 0) >= section.level) parents.pop();
    const parent = parents.at(-1)?.key;
    parents.push({ level: section.level, key });

    const { status: rawStatus, severity, ...rest } = attrs.values;
    let status = (rawStatus ?? DEFAULT_STATUS[kind] ?? "active").toLowerCase();
    let raw: string | null = null;
    if (kind === "decision" && !(DECISION_STATUSES as readonly string[]).includes(status)) {
      raw = rawStatus ?? null;
      status = "unknown";
      issue(
        "warning",
        `decision status "${rawStatus}" is not one of ${DECISION_STATUSES.join("|")}; projected as unknown`,
      );
    }
    const attributes: Record<string, unknown> = { ...rest, heading_level: section.level };
    if (parent !== undefined) attributes["parent"] = parent;
    if (mode.rules) {
      const sev = (severity ?? "soft").toLowerCase();
      if (!(RULE_SEVERITIES as readonly string[]).includes(sev)) {
        issue("error", `rule severity "${severity}" must be one of hard|soft|info`);
      }
      attributes["severity"] = sev;
      attributes["scope"] = splitScope(rest["scope"]);
    } else if (severity !== undefined) {
      attributes["severity"] = severity;
    }
    if (typeof rest["work"] === "string") attributes["work"] = splitList(rest["work"]);
    entities.push({
      kind,
      key,
      title: attrs.title,
      status,
      raw_status: raw,
      summary: firstParagraph(section.body),
      body: section.body,
      attributes,
      line_start: section.line_start,
      line_end: section.line_end,
    });
  });
  return { entities, dependencies: [], issues };
}

function splitList(value: string): string[] {
  return value
    .split(/[\s,]+/)
    .map((v) => v.trim())
    .filter((v) => v !== "");
}

/** Rule scope: `global` (default) or a list of path globs and `tag:NAME` entries. */
function splitScope(value: string | undefined): string[] {
  const list = value === undefined ? [] : splitList(value);
  return list.length === 0 ? ["global"] : list;
}

export function markdownHeadingV1(text: string, context: AdapterContext): AdapterResult {
  return parseMarkdownHeadings(text, context, { rules: context.domain === "rule" });
}

export function markdownRulesV1(text: string, context: AdapterContext): AdapterResult {
  return parseMarkdownHeadings(text, context, { rules: true });
}
