import type { EntityView } from "../read/entity-view.js";
import {
  type Applicability,
  matchScope,
  type ParsedScope,
  parseRuleScope,
  type RuleContext,
  type ScopeEntry,
  scopeText,
} from "./rule-scope.js";
import { type SourceRefView, sourceRefOf } from "./work-facts.js";

export type Severity = "hard" | "soft" | "info";
const SEVERITIES: readonly string[] = ["hard", "soft", "info"];

/**
 * A rule as context results carry it (`critical_rules`, chunks): `external_key`, `text` (title,
 * a blank line, body), `severity` (null when unreadable), `scope` (one `{type, value}`, null
 * when unreadable) and `scopes`, every entry of a list scope (docs/compatibility/context.md).
 */
export interface RuleFact {
  id: string;
  external_key: string;
  revision: number;
  source_ref: SourceRefView;
  text: string;
  severity: Severity | null;
  scope: ScopeEntry | null;
  scopes: ScopeEntry[];
  /** Why the rule's metadata cannot be read (unknown severity, unreadable scope). */
  unresolved: string[];
  /** The scope as written, for display. */
  scope_text: string;
}

export interface RuleMatch {
  rule: RuleFact;
  applicability: Applicability;
  reasons: string[];
}

/** Every rule evaluated once: applicable ones by severity, undecidable ones kept apart. */
export interface RuleSelection {
  hard: RuleFact[];
  soft: RuleFact[];
  info: RuleFact[];
  unknown: RuleMatch[];
  not_applicable: RuleMatch[];
}

export function ruleFact(entity: EntityView, revisionOf: (key: string) => number): RuleFact {
  const parsed: ParsedScope = parseRuleScope(entity.attributes);
  const rawSeverity = entity.attributes["severity"];
  const severity =
    typeof rawSeverity === "string" && SEVERITIES.includes(rawSeverity.toLowerCase())
      ? (rawSeverity.toLowerCase() as Severity)
      : null;
  const unresolved: string[] = [];
  if (severity === null)
    unresolved.push(`severity unresolved: ${String(rawSeverity ?? "not specified")}`);
  if (!parsed.ok) unresolved.push(`scope unresolved: ${parsed.problem}`);
  const declared = entity.attributes["unresolved"];
  if (Array.isArray(declared)) unresolved.push(...declared.map(String));
  const entries = parsed.ok ? parsed.entries : [];
  const body = entity.body.trim();
  return {
    id: entity.id,
    external_key: entity.key,
    revision: revisionOf(entity.key),
    source_ref: sourceRefOf(entity, revisionOf(entity.key)),
    text: body === "" ? entity.title : `${entity.title}\n\n${body}`,
    severity,
    scope: entries.length === 1 ? (entries[0] as ScopeEntry) : null,
    scopes: entries,
    unresolved: [...new Set(unresolved)],
    scope_text: scopeText(parsed),
  };
}

/**
 * Classifies every rule in the context. A rule is applicable only when its scope applies and its
 * metadata is complete; unreadable metadata or unknown context makes it `unknown` (never
 * dropped), which callers must report: for a hard rule (or one of unknown severity) the context
 * is incomplete.
 */
export function selectRules(rules: readonly RuleFact[], context: RuleContext): RuleSelection {
  const selection: RuleSelection = {
    hard: [],
    soft: [],
    info: [],
    unknown: [],
    not_applicable: [],
  };
  for (const rule of rules) {
    // An unreadable scope has no entries; its reason is already among rule.unresolved.
    const match =
      rule.scopes.length === 0
        ? { applicability: "unknown" as const, reasons: [] }
        : matchScope({ ok: true, entries: rule.scopes }, context);
    const reasons = [...new Set([...rule.unresolved, ...match.reasons])].sort();
    if (match.applicability === "not_applicable") {
      selection.not_applicable.push({ rule, applicability: "not_applicable", reasons });
    } else if (match.applicability === "applicable" && rule.severity !== null) {
      selection[rule.severity].push(rule);
    } else {
      selection.unknown.push({ rule, applicability: "unknown", reasons });
    }
  }
  for (const list of [selection.hard, selection.soft, selection.info]) {
    list.sort((a, b) => compare(a.external_key, b.external_key));
  }
  selection.unknown.sort((a, b) => compare(a.rule.external_key, b.rule.external_key));
  return selection;
}

/** Whether an undecidable rule could be a hard one (hard, or of unknown severity). */
export const possiblyHard = (match: RuleMatch) =>
  match.rule.severity === "hard" || match.rule.severity === null;

export const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
