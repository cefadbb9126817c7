import { DECISION_STATUSES, decisionStatus } from "./decision-status.js";
import { entityKindOf } from "./entity-kind.js";
import { parseHeadingAttributes, plainHeadingText, slugify } from "./heading-attributes.js";
import { firstParagraph, splitSections } from "./markdown-sections.js";
import type { AdapterContext, AdapterResult, ParsedEntity, SourceIssue } from "./types.js";

export { DECISION_STATUSES } from "./decision-status.js";
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

function option(context: AdapterContext, name: string): string | undefined {
  const value = context.options[name];
  return typeof value === "string" ? value : undefined;
}

/**
 * markdown-heading-v1 (goals, plan, decisions) and markdown-rules-v1 (rules): one entity per
 * heading, a lone first `#` heading included (option `title_heading = true` makes a lone first
 * `#` heading without an explicit `{#key}` the document's title instead of an entity). Key:
 * `<key_prefix>#<anchor>`; `key_prefix` defaults to the entity kind; the anchor is `{#key}` or
 * a Unicode slug of the heading text, with `-2`, `-3`, ... for a repeat within the file. A
 * repeated explicit key is an error naming both lines. `{name=value}` attributes override the
 * source options `status`, `priority`, `severity`, `scope` and `value`
 * (docs/compatibility/sources.md).
 */
export function parseMarkdownHeadings(
  text: string,
  context: AdapterContext,
  mode: HeadingAdapterMode,
): AdapterResult {
  const kind = entityKindOf(context.domain);
  const prefix = option(context, "key_prefix") ?? kind;
  const sections = splitSections(text);
  const issues: SourceIssue[] = [];
  const entities: ParsedEntity[] = [];
  const titleHeading = context.options["title_heading"] === true;
  const h1s = sections.filter((s) => s.level === 1).length;
  const first = sections[0];
  const skipFirst =
    titleHeading &&
    first?.level === 1 &&
    h1s === 1 &&
    parseHeadingAttributes(first.heading).key === undefined;
  const used = new Map<string, number>();
  const parents: { level: number; key: string }[] = [];
  sections.forEach((section, index) => {
    if (index === 0 && skipFirst) return;
    const attrs = parseHeadingAttributes(section.heading);
    const issue = (severity: SourceIssue["severity"], message: string) =>
      issues.push({ path: context.path, line: section.line_start, severity, message });
    if (attrs.problem !== undefined) issue("error", attrs.problem);
    const title = plainHeadingText(attrs.title);
    let anchor = attrs.key ?? slugify(title);
    const earlier = used.get(anchor);
    if (earlier !== undefined && attrs.key !== undefined) {
      issue(
        "error",
        `duplicate key ${anchor.includes("#") ? anchor : `${prefix}#${anchor}`} (also at ${context.path}:${earlier}); give one of the two headings another {#key}`,
      );
      return;
    }
    for (let n = 2; used.has(anchor); n++) anchor = `${attrs.key ?? slugify(title)}-${n}`;
    used.set(anchor, section.line_start);
    const key = anchor.includes("#") ? anchor : `${prefix}#${anchor}`;
    while (parents.length > 0 && (parents.at(-1)?.level ?? 0) >= section.level) parents.pop();
    const parent = parents.at(-1)?.key;
    parents.push({ level: section.level, key });

    const values: Record<string, string> = { ...attrs.values };
    for (const name of ["status", "priority", "severity", "scope", "value"]) {
      const fallback = option(context, name);
      if (values[name] === undefined && fallback !== undefined) values[name] = fallback;
    }
    const { status: rawStatus, severity, scope, value, ...rest } = values;
    let status = (rawStatus ?? DEFAULT_STATUS[kind] ?? "active").toLowerCase();
    let raw: string | null = null;
    if (kind === "decision") {
      const normalised = rawStatus === undefined ? "proposed" : decisionStatus(rawStatus);
      if (normalised === "unknown") {
        issue(
          "warning",
          `decision status "${rawStatus}" is not one of ${DECISION_STATUSES.join("|")}; projected as unknown`,
        );
      }
      raw = rawStatus !== undefined && rawStatus !== normalised ? rawStatus : null;
      status = normalised;
    }
    const attributes: Record<string, unknown> = { ...rest, heading_level: section.level };
    if (parent !== undefined) attributes["parent"] = parent;
    if (mode.rules) {
      const sev = (severity ?? "soft").toLowerCase();
      if (!(RULE_SEVERITIES as readonly string[]).includes(sev)) {
        issue("error", `rule severity "${severity}" must be one of hard|soft|info`);
      }
      attributes["severity"] = sev;
    } else if (severity !== undefined) {
      attributes["severity"] = severity;
    }
    // A rule's scope is kept as written (`scope=KIND value=V`, or a list of entries); the
    // context compiler reads it and reports a scope it cannot read (context/rule-scope.ts).
    if (scope !== undefined) attributes["scope"] = scope;
    if (value !== undefined) attributes["value"] = value;
    if (typeof rest["work"] === "string") attributes["work"] = splitList(rest["work"]);
    entities.push({
      kind,
      key,
      title,
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

export function markdownHeadingV1(text: string, context: AdapterContext): AdapterResult {
  return parseMarkdownHeadings(text, context, {
    rules: entityKindOf(context.domain) === "rule",
  });
}

export function markdownRulesV1(text: string, context: AdapterContext): AdapterResult {
  return parseMarkdownHeadings(text, context, { rules: true });
}
