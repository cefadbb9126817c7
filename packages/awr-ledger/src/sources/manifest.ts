import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import { LedgerError } from "../errors.js";
import { findSecretInValue, findSecretsInSource } from "../secrets/index.js";
import { SECRET_POLICY_VERSION } from "../secrets/policy.js";
import { DEFAULT_BACKEND, STORAGE_BACKENDS, type StorageConfig } from "../storage/dialect.js";
import { storageDialect } from "../storage/dialects.js";
import { checkSourceOptions } from "./source-options.js";

/**
 * The manifest's source domains. `work`, `rule` and `decision` are the names earlier builds of
 * this implementation wrote; they are still accepted and read as `ledger`, `rules` and
 * `decisions` (docs/compatibility/sources.md).
 */
export const SOURCE_DOMAINS = ["ledger", "goal", "plan", "rules", "decisions"] as const;
export type SourceDomain = (typeof SOURCE_DOMAINS)[number];
export const DOMAIN_ALIASES: Readonly<Record<string, SourceDomain>> = {
  work: "ledger",
  rule: "rules",
  decision: "decisions",
};
export const SOURCE_ROLES = ["primary", "supporting"] as const;
export const ADAPTERS = [
  "yaml-ledger-v1",
  "yaml-workstream-ledger-v1",
  "markdown-heading-v1",
  "markdown-rules-v1",
  "markdown-directory-v1",
] as const;
export type AdapterName = (typeof ADAPTERS)[number];
export const CONTEXT_PROFILES = ["standard", "minimal"] as const;

export interface ManifestSource {
  domain: SourceDomain;
  role: (typeof SOURCE_ROLES)[number];
  /** As written in the manifest: relative to the project root, or absolute (authorized roots). */
  path: string;
  adapter: AdapterName;
  options: Record<string, unknown>;
}

/** The manifest's `[storage]`: which database, and for a server, where its URL is. */
export type ManifestStorage = StorageConfig;

export interface ManifestProject {
  name: string;
  external_key?: string | undefined;
  authority_mode: "source_first";
  /** Directories outside the project root that sources may live in (absolute or root-relative). */
  authorized_roots?: string[] | undefined;
  context_profile?: (typeof CONTEXT_PROFILES)[number] | undefined;
}

export interface Manifest {
  project: ManifestProject;
  storage: ManifestStorage;
  sources: ManifestSource[];
}

/** Which adapters may serve which domain (heading files for rules and decisions are ours). */
const DOMAIN_ADAPTERS: Record<SourceDomain, readonly AdapterName[]> = {
  ledger: ["yaml-ledger-v1", "yaml-workstream-ledger-v1"],
  goal: ["markdown-heading-v1"],
  plan: ["markdown-heading-v1"],
  rules: ["markdown-rules-v1", "markdown-heading-v1"],
  decisions: ["markdown-directory-v1", "markdown-heading-v1"],
};

/**
 * Adapters a manifest may name that this build cannot honour: refused as Unsupported with what
 * they mean, so the user knows what is missing rather than only that the name is not one of
 * this build's (docs/compatibility/sources.md).
 */
const NOT_HONOURED_ADAPTERS: Record<string, string> = {
  "markdown-ledger-v1":
    "the original's Markdown-table work ledger (one work item per table row); convert the table to a yaml-ledger-v1 file",
};

type Table = Record<string, unknown>;

function bad(
  where: string,
  problem: string,
  code: "InvalidInput" | "Unsupported" = "InvalidInput",
): never {
  throw new LedgerError(
    code,
    `Manifest ${where}: ${problem}. Fix .awr/project.toml (or the --manifest file); see the ` +
      "manifest section of the @awr/awr-ledger README (every field: docs/compatibility/sources.md).",
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

function parseProject(project: Table): ManifestProject {
  const where = "[project]";
  onlyKeys(project, where, [
    "name",
    "external_key",
    "authority_mode",
    "authorized_roots",
    "context_profile",
  ]);
  const name = str(project, "name", where, true) as string;
  const externalKey = str(project, "external_key", where, false);
  const authority = oneOf(
    str(project, "authority_mode", where, false) ?? "source_first",
    ["source_first"] as const,
    where,
    "authority_mode",
  );
  const roots = project["authorized_roots"];
  if (
    roots !== undefined &&
    (!Array.isArray(roots) || roots.some((r) => typeof r !== "string" || r.trim() === ""))
  ) {
    bad(where, `"authorized_roots" must be a list of directory paths`);
  }
  const profile =
    project["context_profile"] === undefined
      ? undefined
      : oneOf(
          str(project, "context_profile", where, false),
          CONTEXT_PROFILES,
          where,
          "context_profile",
        );
  return {
    name,
    ...(externalKey === undefined ? {} : { external_key: externalKey }),
    authority_mode: authority,
    ...(roots === undefined ? {} : { authorized_roots: roots as string[] }),
    ...(profile === undefined ? {} : { context_profile: profile }),
  };
}

function parseStorage(storage: Table): ManifestStorage {
  const where = "[storage]";
  onlyKeys(storage, where, ["backend", "url_env", "schema"]);
  const backend = oneOf(
    str(storage, "backend", where, false) ?? DEFAULT_BACKEND,
    STORAGE_BACKENDS,
    where,
    "backend",
  );
  const urlEnv = str(storage, "url_env", where, false);
  if (urlEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(urlEnv)) {
    bad(where, `"url_env" must name an environment variable (letters, digits, _), not a URL`);
  }
  if (storageDialect(backend).connectsByUrl && urlEnv === undefined) {
    bad(where, `backend "${backend}" needs url_env, the environment variable holding the URL`);
  }
  const schema = str(storage, "schema", where, false);
  return {
    backend,
    ...(urlEnv === undefined ? {} : { url_env: urlEnv }),
    ...(schema === undefined ? {} : { schema }),
  };
}

/**
 * A source location: `path` or `locator` (exactly one of them). A `file://`
 * locator is a local absolute path; a `git://<ref>:<path>` locator (a file read from a Git
 * commit) is refused as Unsupported.
 */
function sourceLocation(raw: Table, where: string): string {
  const path = str(raw, "path", where, false);
  const locator = str(raw, "locator", where, false);
  if ((path === undefined) === (locator === undefined)) {
    bad(where, `give exactly one of "path" or "locator"`);
  }
  if (path !== undefined) return path;
  const value = locator as string;
  if (value.startsWith("file://")) {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      bad(where, `locator ${JSON.stringify(value)} is not a valid file:// URL`);
    }
    if (url.search !== "" || url.hash !== "" || (url.host !== "" && url.host !== "localhost")) {
      bad(
        where,
        `file locator ${JSON.stringify(value)} must name a local absolute path (no host, query or fragment)`,
      );
    }
    return decodeURIComponent(url.pathname);
  }
  if (value.startsWith("git://")) {
    bad(
      where,
      `locator ${JSON.stringify(value)} is a Git locator (in the original AWR, git://<ref>:<path> reads the file from that commit without a checkout); this build reads only files: use "path" with the checked-out file`,
      "Unsupported",
    );
  }
  bad(where, `locator ${JSON.stringify(value)} must be a file:// URL (or use "path")`);
}

function parseSource(raw: unknown, index: number): ManifestSource {
  const where = `[[sources]] #${index + 1}`;
  if (!isTable(raw)) bad(where, "must be a table");
  onlyKeys(raw, where, ["domain", "role", "path", "locator", "adapter", "options"]);
  const written = str(raw, "domain", where, true) as string;
  const domain = oneOf(DOMAIN_ALIASES[written] ?? written, SOURCE_DOMAINS, where, "domain");
  const role = oneOf(str(raw, "role", where, false) ?? "primary", SOURCE_ROLES, where, "role");
  const path = sourceLocation(raw, where);
  const adapterName = str(raw, "adapter", where, true) as string;
  const notHonoured = NOT_HONOURED_ADAPTERS[adapterName];
  if (notHonoured !== undefined) {
    bad(
      where,
      `adapter ${adapterName} (${notHonoured}) is not supported by this build`,
      "Unsupported",
    );
  }
  const adapter = oneOf(adapterName, ADAPTERS, where, "adapter");
  if (!DOMAIN_ADAPTERS[domain].includes(adapter)) {
    bad(
      where,
      `adapter ${adapter} cannot serve domain "${domain}" (use ${DOMAIN_ADAPTERS[domain].join(" or ")})`,
    );
  }
  const options = raw["options"] ?? {};
  if (!isTable(options)) bad(where, `"options" must be a table`);
  const problem = checkSourceOptions(adapter, options);
  if (problem !== undefined) bad(`${where} [sources.options]`, problem);
  return { domain, role, path, adapter, options };
}

/** Parses and validates manifest TOML; unknown fields and bad values are refused by name. */
export function parseManifest(text: string): Manifest {
  const [finding] = findSecretsInSource(text, 1);
  if (finding !== undefined) manifestSecret(finding.category, finding.line);
  let doc: Table;
  try {
    doc = parseToml(text) as Table;
  } catch (cause) {
    // The parser's message ends with the offending line; only its first line is repeated,
    // so a syntax error never quotes the manifest's text.
    const reason = (cause as Error).message.split("\n")[0]?.replace(/^Invalid TOML document: /, "");
    const { line, column } = cause as { line?: number; column?: number };
    const where = line === undefined ? "" : ` at line ${line}, column ${column ?? 1}`;
    throw new LedgerError(
      "InvalidInput",
      `Manifest is not valid TOML${where} (${reason}). Fix the syntax of .awr/project.toml.`,
      line === undefined ? undefined : { line, column },
      { cause },
    );
  }
  // Escapes the parser decoded and key names the text scan cannot see as written.
  const inValue = findSecretInValue(doc);
  if (inValue !== undefined) manifestSecret(inValue.category, null, inValue.path);
  onlyKeys(doc, "top level", ["project", "storage", "sources"]);
  const project = doc["project"];
  if (!isTable(project)) bad("[project]", "the [project] table is required");
  const storage = doc["storage"] ?? {};
  if (!isTable(storage)) bad("[storage]", "must be a table");
  const rawSources = doc["sources"] ?? [];
  if (!Array.isArray(rawSources)) bad("[[sources]]", "must be an array of tables");
  const seen = new Set<string>();
  const sources = rawSources.map((raw, index) => {
    const source = parseSource(raw, index);
    if (seen.has(source.path))
      bad(`[[sources]] #${index + 1}`, `path "${source.path}" is listed twice`);
    seen.add(source.path);
    return source;
  });
  return { project: parseProject(project), storage: parseStorage(storage), sources };
}

/**
 * The manifest holds a credential: RuleViolation naming the line or the field path and the
 * category, never the value (docs/design/secret-boundaries.md). A manifest names credentials by
 * reference only (`url_env`).
 */
function manifestSecret(category: string, line: number | null, path?: string): never {
  const where = line === null ? ` in ${path}` : ` at line ${line}`;
  throw new LedgerError(
    "RuleViolation",
    `The manifest .awr/project.toml contains a credential${where} (${category}); remove it and pass a reference (e.g. url_env names the environment variable holding a database URL).`,
    {
      policy_version: SECRET_POLICY_VERSION,
      category,
      ...(line === null ? { path } : { line }),
    },
    {
      next: `Remove the credential from .awr/project.toml${where}; name the environment variable that holds it instead (url_env for a database URL).`,
    },
  );
}

/** Renders a manifest as TOML (used when init writes discovered defaults). */
export function renderManifest(manifest: Manifest): string {
  const doc: Table = { project: manifest.project };
  if (manifest.storage.backend !== DEFAULT_BACKEND || manifest.storage.url_env !== undefined) {
    doc["storage"] = manifest.storage;
  }
  doc["sources"] = manifest.sources.map((s) =>
    Object.keys(s.options).length === 0
      ? { domain: s.domain, role: s.role, path: s.path, adapter: s.adapter }
      : s,
  );
  return `# AWR project manifest: which files are the planning sources, and how to read them.\n${stringifyToml(doc)}\n`;
}
