/**
 * Rule scopes and whether a rule reaches a work item (docs/design/context-compiler.md, "Rule
 * scopes"). A scope is one or more entries, each of a kind:
 *
 * - `project`: value `*` reaches every item; any other value must equal the project key;
 * - `path`: a project-relative glob (`*` within a segment, `**` across, a trailing `/` for a
 *   directory's descendants) matched against the concrete paths in play;
 * - `tag`: the value must be among the work item's tags and the caller's;
 * - `work_item`: the value must equal the work item key;
 * - `agent`: the value must equal the agent (the caller's, else the session's).
 *
 * A rule writes its scope as `scope=KIND value=V` (one entry) or as a
 * space-separated list of `KIND:VALUE` entries; the short forms `global` / `*` (project `*`),
 * `tag:NAME` and a bare path glob are accepted in the list. A list reaches an item when any of
 * its entries does. Evaluation is three-valued: when the context an entry needs is unknown (no
 * paths or tags in play) or the scope cannot be read, the answer is `unknown` with a reason,
 * never a silent "does not apply".
 */

export const SCOPE_KINDS = ["project", "path", "tag", "work_item", "agent"] as const;
export type ScopeKind = (typeof SCOPE_KINDS)[number];

export interface ScopeEntry {
  type: ScopeKind;
  value: string;
}

/** A rule's scope as read from its attributes: the entries, or why they cannot be read. */
export type ParsedScope =
  | { ok: true; entries: ScopeEntry[] }
  | { ok: false; problem: string; raw: string };

/** What is known about the place a rule is asked about; null means unknown, [] known empty. */
export interface RuleContext {
  project_key: string | null;
  work_item_key: string | null;
  agent_id: string | null;
  paths: string[] | null;
  tags: string[] | null;
}

export type Applicability = "applicable" | "not_applicable" | "unknown";

export interface ScopeMatch {
  applicability: Applicability;
  reasons: string[];
}

const isKind = (value: string): value is ScopeKind =>
  (SCOPE_KINDS as readonly string[]).includes(value);

/**
 * Reads a rule's scope from its entity attributes: `scope` (a string, a list of strings, or an
 * object `{type, value}`) and `value`. A rule without any scope is project-wide, which is what
 * this repository's rules files have always meant by an absent scope.
 */
export function parseRuleScope(attributes: Record<string, unknown>): ParsedScope {
  const scope = attributes["scope"];
  const value = attributes["value"];
  if (scope !== null && typeof scope === "object" && !Array.isArray(scope)) {
    const { type, value: v } = scope as Record<string, unknown>;
    return single(String(type ?? ""), typeof v === "string" ? v : undefined, JSON.stringify(scope));
  }
  const words = (
    Array.isArray(scope) ? scope.map(String) : typeof scope === "string" ? [scope] : []
  )
    .flatMap((s) => s.split(/\s+/))
    .filter((s) => s !== "");
  if (typeof value === "string") {
    if (words.length !== 1) {
      return {
        ok: false,
        problem: `value= needs exactly one scope kind (scope=${SCOPE_KINDS.join("|")})`,
        raw: `scope=${words.join(" ")} value=${value}`,
      };
    }
    return single(words[0] as string, value, `scope=${words[0]} value=${value}`);
  }
  if (words.length === 0) return { ok: true, entries: [{ type: "project", value: "*" }] };
  const entries: ScopeEntry[] = [];
  for (const word of words) {
    const entry = listEntry(word);
    if (typeof entry === "string") return { ok: false, problem: entry, raw: words.join(" ") };
    entries.push(entry);
  }
  return { ok: true, entries };
}

function single(type: string, value: string | undefined, raw: string): ParsedScope {
  if (!isKind(type)) {
    return {
      ok: false,
      problem: `unknown scope kind "${type}" (one of ${SCOPE_KINDS.join(", ")})`,
      raw,
    };
  }
  if (value === undefined || value.trim() === "") {
    return { ok: false, problem: `scope ${type} needs a non-empty value=`, raw };
  }
  return { ok: true, entries: [{ type, value: value.trim() }] };
}

function listEntry(word: string): ScopeEntry | string {
  if (word === "global" || word === "*" || word === "**") return { type: "project", value: "*" };
  const colon = word.indexOf(":");
  if (colon > 0) {
    const kind = word.slice(0, colon);
    const value = word.slice(colon + 1);
    if (!isKind(kind))
      return `unknown scope kind "${kind}" in "${word}" (one of ${SCOPE_KINDS.join(", ")})`;
    if (value === "") return `scope entry "${word}" has an empty value`;
    return { type: kind, value };
  }
  if (SCOPE_KINDS.includes(word as ScopeKind)) {
    return `scope kind "${word}" needs a value (write ${word}:VALUE, or scope=${word} value=VALUE)`;
  }
  return { type: "path", value: word };
}

/** A scope written back as text, as packets and diagnostics show it. */
export function scopeText(scope: ParsedScope): string {
  return scope.ok ? scope.entries.map((e) => `${e.type} ${e.value}`).join("; ") : scope.raw;
}

/** Evaluates a parsed scope in a context: any applicable entry makes the rule apply. */
export function matchScope(scope: ParsedScope, context: RuleContext): ScopeMatch {
  if (!scope.ok)
    return { applicability: "unknown", reasons: [`rule scope unreadable: ${scope.problem}`] };
  const reasons: string[] = [];
  let unknown = false;
  for (const entry of scope.entries) {
    const result = matchEntry(entry, context);
    if (result === true) return { applicability: "applicable", reasons: [] };
    if (typeof result === "string") {
      unknown = true;
      reasons.push(result);
    }
  }
  return unknown
    ? { applicability: "unknown", reasons: [...new Set(reasons)].sort() }
    : { applicability: "not_applicable", reasons: [] };
}

/** true / false, or a string saying why it cannot be decided. */
function matchEntry(entry: ScopeEntry, context: RuleContext): boolean | string {
  const equals = (known: string | null, label: string) =>
    known === null ? `${label} context is unknown` : known === entry.value;
  switch (entry.type) {
    case "project":
      return entry.value === "*" || equals(context.project_key, "project");
    case "work_item":
      return equals(context.work_item_key, "work item");
    case "agent":
      return equals(context.agent_id, "agent");
    case "tag":
      return context.tags === null ? "tag context is unknown" : context.tags.includes(entry.value);
    case "path":
      return context.paths === null
        ? "path context is unknown"
        : matchPathScope(entry.value, context.paths);
  }
}

const relative = (path: string) =>
  path !== "" &&
  !path.startsWith("/") &&
  !path.includes("\\") &&
  !path.includes(":") &&
  !path.split("/").includes("..");

const clean = (path: string) =>
  path
    .split("/")
    .filter((part) => part !== "" && part !== ".")
    .join("/");

/**
 * Whether a path glob matches any of the paths (case-sensitive, `*` and `?` never cross `/`).
 * A pattern or path that is not project-relative gives a reason string instead.
 */
export function matchPathScope(pattern: string, paths: readonly string[]): boolean | string {
  if (!relative(pattern) || paths.some((p) => !relative(p))) {
    return `path scope "${pattern}" and the paths in play must be project-relative forward-slash paths`;
  }
  const glob = clean(pattern) + (pattern.endsWith("/") ? "/**" : "");
  const regex = globToRegExp(glob);
  return paths.some((path) => regex.test(clean(path)));
}

function globToRegExp(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === "*" && glob[i + 1] === "*") {
      i++;
      if (glob[i + 1] === "/") {
        i++;
        source += "(?:.*/)?";
      } else source += ".*";
    } else if (c === "*") source += "[^/]*";
    else if (c === "?") source += "[^/]";
    else source += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

/**
 * Concrete paths only: a glob or a directory (trailing `/`) names an area, not the files an
 * execution touches, so a path context holding one is unknown (null).
 */
export function concretePaths(paths: readonly string[]): string[] | null {
  if (paths.some((p) => p.trim() === "" || p.endsWith("/") || /[*?[\]{}]/.test(p))) return null;
  return [...new Set(paths)].sort();
}
