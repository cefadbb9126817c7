import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import { LedgerError } from "../errors.js";

export const SOURCE_DOMAINS = ["work", "goal", "plan", "rule", "decision"] as const;
export type SourceDomain = (typeof SOURCE_DOMAINS)[number];
export const SOURCE_ROLES = ["primary", "supporting"] as const;
export const ADAPTERS = ["yaml-ledger-v1", "markdown-heading-v1", "markdown-rules-v1"] as const;
export type AdapterName = (typeof ADAPTERS)[number];

export interface ManifestSource {
  domain: SourceDomain;
  role: (typeof SOURCE_ROLES)[number];
  path: string;
  adapter: AdapterName;
  options: Record<string, unknown>;
}

export interface ManifestStorage {
  backend: "sqlite" | "postgres";
  /** Name of the environment variable holding the PostgreSQL URL (never the URL itself). */
  url_env?: string | undefined;
  /** PostgreSQL schema holding this project's ledger. */
  schema?: string | undefined;
}

export interface Manifest {
  project: { name: string; external_key?: string | undefined; authority_mode: "source_first" };
  storage: ManifestStorage;
  sources: ManifestSource[];
}

/** Which adapters may serve which domain. */
const DOMAIN_ADAPTERS: Record<SourceDomain, readonly AdapterName[]> = {
  work: ["yaml-ledger-v1"],
  goal: ["markdown-heading-v1"],
  plan: ["markdown-heading-v1"],
  decision: ["markdown-heading-v1"],
  rule: ["markdown-rules-v1", "markdown-heading-v1"],
};

type Table = Record<string, unknown>;

function bad(where: string, problem: string): never {
  throw new LedgerError(
    "InvalidInput",
    `Manifest ${where}: ${problem}. Fix .awr/project.toml (or the --manifest file); see the ` +
      "manifest format in the @awr/awr-ledger README.",
    { where },
  );
}

function isTable(value: unknown): value is Table {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function onlyKeys(table: Table, where: string, allowed: readonly string[]): void {
  for (const key of Object.keys(table)) {
    if (!allowed.includes(key)) {
      bad(where, `unknown field "${key}" (allowed: ${allowed.join(", ")})`);
    }
  }
}

function str(table: Table, key: string, where: string, required: boolean): string | undefined {
  const value = table[key];
  if (value === undefined) {
    if (required) bad(where, `"${key}" is required`);
    return undefined;
  }
  if (typeof value !== "string" || value.trim() === "")
    bad(where, `"${key}" must be a non-empty string`);
  return value;
}

function oneOf<T extends string>(
  value: string | undefined,
  allowed: readonly T[],
  where: string,
  key: string,
): T {
  if (value === undefined || !(allowed as readonly string[]).includes(value)) {
    bad(where, `"${key}" must be one of ${allowed.join(", ")}; got ${JSON.stringify(value)}`);
  }
  return value as T;
}

/** Parses and validates manifest TOML; unknown fields and bad values are refused by name. */
export function parseManifest(text: string): Manifest {
  let doc: Table;
  try {
    doc = parseToml(text) as Table;
  } catch (cause) {
    throw new LedgerError(
      "InvalidInput",
      `Manifest is not valid TOML: ${(cause as Error).message}. Fix the syntax of .awr/project.toml.`,
      undefined,
      { cause },
    );
  }
  onlyKeys(doc, "top level", ["project", "storage", "sources"]);
  const project = doc["project"];
  if (!isTable(project)) bad("[project]", "the [project] table is required");
  onlyKeys(project, "[project]", ["name", "external_key", "authority_mode"]);
  const name = str(project, "name", "[project]", true) as string;
  const externalKey = str(project, "external_key", "[project]", false);
  const authority = oneOf(
    str(project, "authority_mode", "[project]", false) ?? "source_first",
    ["source_first"] as const,
    "[project]",
    "authority_mode",
  );

  const storageTable = doc["storage"] ?? {};
  if (!isTable(storageTable)) bad("[storage]", "must be a table");
  onlyKeys(storageTable, "[storage]", ["backend", "url_env", "schema"]);
  const backend = oneOf(
    str(storageTable, "backend", "[storage]", false) ?? "sqlite",
    ["sqlite", "postgres"] as const,
    "[storage]",
    "backend",
  );
  const urlEnv = str(storageTable, "url_env", "[storage]", false);
  if (urlEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(urlEnv)) {
    bad("[storage]", `"url_env" must name an environment variable (letters, digits, _), not a URL`);
  }
  if (backend === "postgres" && urlEnv === undefined) {
    bad("[storage]", `backend "postgres" needs url_env, the environment variable holding the URL`);
  }
  const schema = str(storageTable, "schema", "[storage]", false);

  const rawSources = doc["sources"] ?? [];
  if (!Array.isArray(rawSources)) bad("[[sources]]", "must be an array of tables");
  const seen = new Set<string>();
  const sources = rawSources.map((raw, index): ManifestSource => {
    const where = `[[sources]] #${index + 1}`;
    if (!isTable(raw)) bad(where, "must be a table");
    onlyKeys(raw, where, ["domain", "role", "path", "adapter", "options"]);
    const domain = oneOf(str(raw, "domain", where, true), SOURCE_DOMAINS, where, "domain");
    const role = oneOf(str(raw, "role", where, false) ?? "primary", SOURCE_ROLES, where, "role");
    const path = str(raw, "path", where, true) as string;
    const adapter = oneOf(str(raw, "adapter", where, true), ADAPTERS, where, "adapter");
    if (!DOMAIN_ADAPTERS[domain].includes(adapter)) {
      bad(
        where,
        `adapter ${adapter} cannot serve domain "${domain}" (use ${DOMAIN_ADAPTERS[domain].join(" or ")})`,
      );
    }
    if (seen.has(path)) bad(where, `path "${path}" is listed twice`);
    seen.add(path);
    const options = raw["options"] ?? {};
    if (!isTable(options)) bad(where, `"options" must be a table`);
    return { domain, role, path, adapter, options };
  });
  return {
    project: {
      name,
      ...(externalKey === undefined ? {} : { external_key: externalKey }),
      authority_mode: authority,
    },
    storage: {
      backend,
      ...(urlEnv === undefined ? {} : { url_env: urlEnv }),
      ...(schema === undefined ? {} : { schema }),
    },
    sources,
  };
}

/** Renders a manifest as TOML (used when init writes discovered defaults). */
export function renderManifest(manifest: Manifest): string {
  const doc: Table = { project: manifest.project };
  if (manifest.storage.backend !== "sqlite" || manifest.storage.url_env !== undefined) {
    doc["storage"] = manifest.storage;
  }
  doc["sources"] = manifest.sources.map((s) =>
    Object.keys(s.options).length === 0
      ? { domain: s.domain, role: s.role, path: s.path, adapter: s.adapter }
      : s,
  );
  return `# AWR project manifest: which files are the planning sources, and how to read them.\n${stringifyToml(doc)}\n`;
}
