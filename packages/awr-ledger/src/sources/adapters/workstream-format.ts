import type { SourceIssue } from "./source-issue.js";

/**
 * The `workstreams:` block of a yaml-workstream-ledger-v1 ledger
 * (docs/compatibility/workstreams.md):
 *
 *   workstreams:
 *     version: 1
 *     legacy_default: <id>          # optional; must be one of the definitions
 *     definitions:
 *       - id: 01K00000000000000000000001   # a ULID, not all zeros; immutable
 *         external_key: api                 # [A-Za-z0-9][A-Za-z0-9._-]{0,127}; immutable
 *         title: API
 *         state: active                     # active | paused | archived
 *         authority_version: 1              # positive; raised for every change of authority
 *         goal_keys: [api-delivery]
 *         acceptance_contracts: []
 *
 * Every field of a definition is required and no other is allowed. Every work item of the ledger
 * names its owner with `workstream: <external_key>`.
 */

export const WORKSTREAM_STATES = ["active", "paused", "archived"] as const;
export type WorkstreamState = (typeof WORKSTREAM_STATES)[number];
export const WORKSTREAM_CATALOG_VERSION = 1;
/** The most definitions one ledger may declare, and references one definition may list. */
export const MAX_WORKSTREAMS = 4096;
const MAX_REFERENCES = 256;

const BLOCK_FIELDS = ["version", "legacy_default", "definitions"] as const;
const DEFINITION_FIELDS = [
  "id",
  "external_key",
  "title",
  "state",
  "authority_version",
  "goal_keys",
  "acceptance_contracts",
] as const;

export interface WorkstreamDefinition {
  id: string;
  external_key: string;
  title: string;
  state: WorkstreamState;
  authority_version: number;
  goal_keys: string[];
  acceptance_contracts: string[];
  /** Line of the definition in its ledger. */
  line: number;
}

/** What a workstream ledger declares: its definitions and the owner of every work item. */
export interface WorkstreamDeclaration {
  version: number;
  legacy_default: string | null;
  definitions: WorkstreamDefinition[];
  /** One entry per work item: its key and the id of the workstream that owns it. */
  ownership: { work: string; workstream_id: string }[];
}

const ULID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
const NIL_ULID = "0".repeat(26);
const EXTERNAL_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** A workstream id: a ULID (any case, returned upper case), never all zeros. */
export function workstreamIdOf(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const id = value.toUpperCase();
  return ULID.test(id) && id !== NIL_ULID ? id : undefined;
}

export function isExternalKey(value: unknown): value is string {
  return typeof value === "string" && EXTERNAL_KEY.test(value);
}

/** Non-empty, no surrounding space or control character, at most `limit` UTF-8 bytes. */
function boundedText(value: unknown, limit: number): value is string {
  return (
    typeof value === "string" &&
    value !== "" &&
    value.trim() === value &&
    Buffer.byteLength(value, "utf8") <= limit &&
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are refused.
    !/[\u0000-\u001f\u007f-\u009f]/.test(value)
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

type Report = (path: (string | number)[], message: string, code?: SourceIssue["code"]) => void;

/**
 * Reads the `workstreams:` block; every problem is reported at its line through `report`
 * (an unknown version as Unsupported). Undefined when the block is unusable.
 */
export function readWorkstreamBlock(
  block: unknown,
  report: Report,
): Omit<WorkstreamDeclaration, "ownership"> | undefined {
  const at = (...path: (string | number)[]) => ["workstreams", ...path];
  if (!isRecord(block)) {
    report(at(), "workstreams must be a mapping with version and definitions");
    return undefined;
  }
  let usable = true;
  const fail = (path: (string | number)[], message: string, code?: SourceIssue["code"]) => {
    report(path, message, code);
    usable = false;
  };
  for (const key of Object.keys(block)) {
    if (!(BLOCK_FIELDS as readonly string[]).includes(key)) {
      fail(at(key), `workstreams: unknown field "${key}" (allowed: ${BLOCK_FIELDS.join(", ")})`);
    }
  }
  const version = block["version"];
  if (version !== WORKSTREAM_CATALOG_VERSION) {
    fail(
      at("version"),
      `workstreams.version ${JSON.stringify(version ?? null)} is not supported; this build reads version ${WORKSTREAM_CATALOG_VERSION}`,
      "Unsupported",
    );
  }
  const list = block["definitions"];
  if (!Array.isArray(list) || list.length === 0) {
    fail(at("definitions"), "workstreams.definitions must list at least one workstream definition");
    return undefined;
  }
  if (list.length > MAX_WORKSTREAMS) {
    fail(at("definitions"), `workstreams.definitions lists over ${MAX_WORKSTREAMS} workstreams`);
  }
  const definitions: WorkstreamDefinition[] = [];
  const ids = new Map<string, number>();
  const keys = new Map<string, number>();
  list.forEach((entry, i) => {
    const definition = readDefinition(entry, i, fail);
    if (definition === undefined) return;
    const where = `workstreams.definitions[${i}]`;
    if (ids.has(definition.id)) {
      fail(at("definitions", i, "id"), `${where}: id ${definition.id} is declared twice`);
    }
    if (keys.has(definition.external_key)) {
      fail(
        at("definitions", i, "external_key"),
        `${where}: external_key ${definition.external_key} is declared twice`,
      );
    }
    ids.set(definition.id, i);
    keys.set(definition.external_key, i);
    definitions.push(definition);
  });
  let legacy_default: string | null = null;
  if (block["legacy_default"] !== undefined && block["legacy_default"] !== null) {
    const id = workstreamIdOf(block["legacy_default"]);
    if (id === undefined || !ids.has(id)) {
      fail(at("legacy_default"), "workstreams.legacy_default must be the id of a definition");
    } else legacy_default = id;
  }
  return usable ? { version: WORKSTREAM_CATALOG_VERSION, legacy_default, definitions } : undefined;
}

function readDefinition(
  entry: unknown,
  index: number,
  fail: Report,
): WorkstreamDefinition | undefined {
  const path = (...rest: (string | number)[]) => ["workstreams", "definitions", index, ...rest];
  const where = `workstreams.definitions[${index}]`;
  if (!isRecord(entry)) {
    fail(path(), `${where} must be a mapping`);
    return undefined;
  }
  let ok = true;
  const problem = (field: string, message: string) => {
    fail(path(field), `${where}.${field} ${message}`);
    ok = false;
  };
  for (const key of Object.keys(entry)) {
    if (!(DEFINITION_FIELDS as readonly string[]).includes(key)) {
      problem(key, `is not a field of a definition (fields: ${DEFINITION_FIELDS.join(", ")})`);
    }
  }
  for (const field of DEFINITION_FIELDS) {
    if (entry[field] === undefined || entry[field] === null) problem(field, "is required");
  }
  if (!ok) return undefined;
  const id = workstreamIdOf(entry["id"]);
  if (id === undefined)
    problem("id", "must be a ULID (26 Crockford base-32 characters, not all zeros)");
  if (!isExternalKey(entry["external_key"])) {
    problem(
      "external_key",
      "must be 1 to 128 of A-Z a-z 0-9 . _ -, starting with a letter or digit",
    );
  }
  if (!boundedText(entry["title"], 512)) {
    problem(
      "title",
      "must be text of 1 to 512 bytes without surrounding space or control characters",
    );
  }
  const state = entry["state"];
  if (!(WORKSTREAM_STATES as readonly unknown[]).includes(state)) {
    problem("state", `must be one of ${WORKSTREAM_STATES.join(", ")}`);
  }
  const version = entry["authority_version"];
  if (typeof version !== "number" || !Number.isSafeInteger(version) || version < 1) {
    problem("authority_version", "must be a positive integer");
  }
  const references = (field: "goal_keys" | "acceptance_contracts"): string[] => {
    const value = entry[field];
    if (
      !Array.isArray(value) ||
      value.length > MAX_REFERENCES ||
      !value.every((item) => boundedText(item, 4096)) ||
      new Set(value).size !== value.length
    ) {
      problem(field, `must be a list of at most ${MAX_REFERENCES} distinct, non-empty strings`);
      return [];
    }
    return value as string[];
  };
  const goal_keys = references("goal_keys");
  const acceptance_contracts = references("acceptance_contracts");
  if (!ok) return undefined;
  return {
    id: id as string,
    external_key: entry["external_key"] as string,
    title: entry["title"] as string,
    state: state as WorkstreamState,
    authority_version: version as number,
    goal_keys,
    acceptance_contracts,
    line: 0,
  };
}
