/**
 * `[sources.options]` per adapter: each adapter's options, checked by type, and
 * `title_heading`, `max_bytes` and `max_entities`. An option an adapter does not know is refused
 * by name, never ignored (docs/compatibility/sources.md).
 */

const MIB = 1024 * 1024;

/**
 * Byte caps per source file unless `max_bytes` says otherwise: 2 MiB of Markdown, 4 MiB of YAML.
 */
export const DEFAULT_MAX_BYTES: Record<string, number> = {
  "yaml-ledger-v1": 4 * MIB,
  "yaml-workstream-ledger-v1": 4 * MIB,
  "markdown-heading-v1": 2 * MIB,
  "markdown-rules-v1": 2 * MIB,
  "markdown-directory-v1": 2 * MIB,
};
/** Entities (headings, work items, ...) one source may define; for a directory, its files. */
export const DEFAULT_MAX_ENTITIES = 20_000;
export const DEFAULT_MAX_DIRECTORY_FILES = 4096;
/** The largest cap an option may set: 1 GiB, 10 million entities. */
const CAP_LIMITS = { max_bytes: 1024 * MIB, max_entities: 10_000_000 } as const;

const CAPS = ["max_bytes", "max_entities"] as const;
const MARKDOWN = [
  "key_prefix",
  "status",
  "priority",
  "severity",
  "scope",
  "value",
  "title_heading",
];
const ALLOWED: Record<string, readonly string[]> = {
  "markdown-heading-v1": [...MARKDOWN, ...CAPS],
  "markdown-rules-v1": [...MARKDOWN, ...CAPS],
  "markdown-directory-v1": ["recursive", ...CAPS],
  "yaml-ledger-v1": ["field_map", "status_map", ...CAPS],
  "yaml-workstream-ledger-v1": ["field_map", "status_map", ...CAPS],
};
const STRING_OPTIONS = new Set(["key_prefix", "status", "priority", "severity", "scope", "value"]);
const BOOLEAN_OPTIONS = new Set(["title_heading", "recursive"]);

/** Work fields a `field_map` may rename (docs/compatibility/sources.md). */
export const MAPPABLE_WORK_FIELDS = [
  "id",
  "title",
  "status",
  "kind",
  "owner",
  "priority",
  "required",
  "summary",
  "next_action",
  "blocker",
  "acceptance",
  "depends_on",
  "goal",
  "milestone",
  "tags",
  "paths",
] as const;

function stringTable(value: unknown): value is Record<string, string> {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === "string" && v.trim() !== "")
  );
}

/** The problem with a source's options, or undefined when they are fine. */
export function checkSourceOptions(
  adapter: string,
  options: Record<string, unknown>,
): string | undefined {
  const allowed = ALLOWED[adapter] ?? CAPS;
  for (const [key, value] of Object.entries(options)) {
    if (!allowed.includes(key)) {
      return `adapter ${adapter} has no option "${key}" (allowed: ${allowed.join(", ")})`;
    }
    if (STRING_OPTIONS.has(key) && (typeof value !== "string" || value.trim() === "")) {
      return `"${key}" must be a non-empty string`;
    }
    if (BOOLEAN_OPTIONS.has(key) && typeof value !== "boolean")
      return `"${key}" must be true or false`;
    if (key === "max_bytes" || key === "max_entities") {
      const limit = CAP_LIMITS[key];
      if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > limit) {
        return `"${key}" must be an integer from 1 to ${limit}`;
      }
    }
    if (key === "field_map" || key === "status_map") {
      if (!stringTable(value)) return `"${key}" must be a table of strings`;
    }
    if (key === "field_map") {
      for (const field of Object.keys(value as object)) {
        if (!(MAPPABLE_WORK_FIELDS as readonly string[]).includes(field)) {
          return `field_map cannot rename "${field}" (mappable work fields: ${MAPPABLE_WORK_FIELDS.join(", ")})`;
        }
      }
    }
  }
  return undefined;
}

/** The byte and entity caps in force for a source. */
export function sourceCaps(
  adapter: string,
  options: Record<string, unknown>,
): { maxBytes: number; maxEntities: number } {
  const maxBytes = options["max_bytes"];
  const maxEntities = options["max_entities"];
  return {
    maxBytes: typeof maxBytes === "number" ? maxBytes : (DEFAULT_MAX_BYTES[adapter] ?? 2 * MIB),
    maxEntities:
      typeof maxEntities === "number"
        ? maxEntities
        : adapter === "markdown-directory-v1"
          ? DEFAULT_MAX_DIRECTORY_FILES
          : DEFAULT_MAX_ENTITIES,
  };
}
