/**
 * The dependency-direction rules (between packages, and between the ledger's layers), as a
 * pure check over package manifests and source files, so a test can run it on the real
 * workspace and on synthetic violations.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, posix, relative } from "node:path";
import { importCycles, unitOf } from "./import-cycles.js";

export interface PackageManifest {
  /** Folder relative to the workspace root, e.g. "packages/jsonrpc-core". */
  dir: string;
  json: {
    name: string;
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };
}

export interface SourceFile {
  /** Path relative to the workspace root. */
  path: string;
  text: string;
}

const MCP_PACKAGES = [
  "@awr/jsonrpc-core",
  "@awr/transport-stdio",
  "@awr/transport-http",
  "@awr/mcp-client",
];
const APPS_PREFIX = "apps/";

/** Which workspace packages each library may depend on at runtime (apps may compose anything). */
const ALLOWED_WORKSPACE_DEPS: Record<string, string[]> = {
  "@awr/jsonrpc-core": [],
  "@awr/transport-stdio": ["@awr/jsonrpc-core"],
  "@awr/transport-http": ["@awr/jsonrpc-core"],
  "@awr/mcp-client": ["@awr/jsonrpc-core", "@awr/transport-stdio", "@awr/transport-http"],
  "@awr/awr-ledger": [],
  // The server speaks the same JSON-RPC as the client: jsonrpc-core's vocabulary and the stdio
  // transport's line decoder.
  "@awr/awr-server": ["@awr/awr-ledger", "@awr/jsonrpc-core", "@awr/transport-stdio"],
  // Private (never published): the tests' and benchmarks' synthetic projects. No library lists
  // it as a runtime dependency, so nothing published can reach it.
  "@awr/ledger-fixtures": ["@awr/awr-ledger"],
};

/** awr-server reaches the official MCP SDK through this one adapter folder only. */
const SERVER_SRC = "packages/awr-server/src/";
const SERVER_SDK_ADAPTER = "packages/awr-server/src/sdk/";

function runtimeDeps(json: PackageManifest["json"]): string[] {
  return [...Object.keys(json.dependencies ?? {}), ...Object.keys(json.peerDependencies ?? {})];
}

export function checkDependencyRules(
  manifests: PackageManifest[],
  sources: SourceFile[] = [],
): string[] {
  const problems: string[] = [];
  const appNames = new Set(
    manifests.filter((m) => m.dir.startsWith(APPS_PREFIX)).map((m) => m.json.name),
  );
  const workspaceNames = new Set(manifests.map((m) => m.json.name));

  for (const { dir, json } of manifests) {
    const deps = runtimeDeps(json);
    const allDeps = [...deps, ...Object.keys(json.devDependencies ?? {})];
    for (const dep of allDeps) {
      if (appNames.has(dep))
        problems.push(`${json.name} depends on the app ${dep}: nothing may depend on an app`);
    }
    if (dir.startsWith(APPS_PREFIX)) continue;
    if (json.name === "@awr/jsonrpc-core" && deps.length > 0) {
      problems.push(
        `@awr/jsonrpc-core must have no runtime dependencies, found: ${deps.join(", ")}`,
      );
    }
    if (json.name === "@awr/awr-ledger") {
      for (const dep of deps) {
        if (MCP_PACKAGES.includes(dep) || dep.startsWith("@modelcontextprotocol/")) {
          problems.push(`@awr/awr-ledger must not depend on an MCP package, found: ${dep}`);
        }
      }
    }
    const allowed = ALLOWED_WORKSPACE_DEPS[json.name];
    if (allowed === undefined) {
      problems.push(
        `${json.name} (${dir}) is not in the dependency rules: add it to ALLOWED_WORKSPACE_DEPS in scripts/dependency-rules.ts`,
      );
      continue;
    }
    for (const dep of deps) {
      if (workspaceNames.has(dep) && !allowed.includes(dep) && !appNames.has(dep)) {
        problems.push(
          `${json.name} may not depend on ${dep} (allowed: ${allowed.join(", ") || "none"})`,
        );
      }
    }
  }

  for (const { path, text } of sources) {
    const unplaced = unplacedLedgerUnit(path);
    if (unplaced !== undefined) problems.push(unplaced);
    problems.push(...databaseChoiceLeaks(path, text));
    for (const match of text.matchAll(/(?:from\s+|import\s*\(\s*)["']([^"']+)["']/g)) {
      const specifier = match[1] ?? "";
      const upward = ledgerLayerViolation(path, specifier);
      if (upward !== undefined) problems.push(upward);
      if (
        /^@awr\/[^/]+\/src(\/|$)/.test(specifier) ||
        reachesAnotherPackageSource(path, specifier)
      ) {
        problems.push(
          `${path} deep-imports another package's sources (${specifier}): import its public entry instead`,
        );
      }
      if (
        specifier.startsWith("@modelcontextprotocol/") &&
        path.startsWith(SERVER_SRC) &&
        !path.startsWith(SERVER_SDK_ADAPTER)
      ) {
        problems.push(
          `${path} imports ${specifier}: awr-server reaches the MCP SDK only through ${SERVER_SDK_ADAPTER}mcp-sdk.ts (add what it needs there)`,
        );
      }
      if (path.startsWith("packages/jsonrpc-core/src/") && specifier.startsWith("node:")) {
        problems.push(
          `${path} imports ${specifier}: @awr/jsonrpc-core must stay runtime-neutral (no node: imports)`,
        );
      }
    }
  }
  problems.push(...importCycles(sources));
  return problems;
}

/**
 * The ledger's units (each folder under src/, and each file directly in it), lowest first: a
 * unit may import the units before it, never one after it. So the errors and storage know
 * nothing of the sources, the request journal never reaches into the tool handlers that use it,
 * and the catalog (which maps tools to handlers) sits above every handler. A new folder must be
 * placed here.
 */
const LEDGER_LAYERS = [
  "errors.ts",
  "internal/",
  "storage/",
  "secrets/",
  "core/",
  "sources/",
  "journal/",
  "projection/",
  "runtime/",
  "claims/",
  "branches/",
  "sessions/",
  "compaction/",
  "work/",
  "changes/",
  "doctor/",
  "project/",
  "read/",
  "graph/",
  "management/",
  "context/",
  "status/",
  "workstreams/",
  "prepare/",
  "catalog/",
  "init/",
  "testing/",
  "ledger.ts",
  "open.ts",
  "drivers.ts",
  "index.ts",
];
const LEDGER_SRC = "packages/awr-ledger/src/";

function ledgerUnit(path: string): string {
  return unitOf(path).slice(LEDGER_SRC.length);
}

function unplacedLedgerUnit(path: string): string | undefined {
  if (!path.startsWith(LEDGER_SRC) || LEDGER_LAYERS.includes(ledgerUnit(path))) return undefined;
  return `${path}: the ledger unit ${ledgerUnit(path)} is not in LEDGER_LAYERS (scripts/dependency-rules.ts): place it among the layers`;
}

function ledgerLayerViolation(fromPath: string, specifier: string): string | undefined {
  if (!fromPath.startsWith(LEDGER_SRC) || !specifier.startsWith(".")) return undefined;
  const layerOf = (p: string) => LEDGER_LAYERS.indexOf(ledgerUnit(p));
  const from = layerOf(fromPath);
  if (from < 0) return undefined;
  const target = posix
    .normalize(posix.join(posix.dirname(fromPath), specifier))
    .replace(/\.js$/, ".ts");
  const to = layerOf(target);
  if (to <= from) return undefined;
  return `${fromPath} imports ${specifier}: ledger layer ${ledgerUnit(fromPath)} may not import the higher layer ${LEDGER_LAYERS[to]}`;
}

const LEDGER_STORAGE = `${LEDGER_SRC}storage/`;

/**
 * The database choice stays inside the ledger's storage/: every other source file holds a
 * StorageDialect and uses what it bundles (search, doctor queries, locks), never asking which
 * database it is on. So outside storage/ no source calls `choose(` or reads `dialect.name`, and
 * none imports a backend folder (storage/sqlite/, storage/postgres/). Test files are exempt: the
 * suite runs each case on both databases and must build per-database fixtures (open a fresh
 * SQLite file or PostgreSQL schema, damage one with its own SQL) and assert the dialect's name.
 */
function databaseChoiceLeaks(path: string, text: string): string[] {
  if (!/^(packages|apps)\/[^/]+\/src\//.test(path) || path.startsWith(LEDGER_STORAGE)) return [];
  const problems: string[] = [];
  const fix =
    "put the per-database part behind StorageDialect (packages/awr-ledger/src/storage/dialect.ts) and use the dialect's member";
  if (/\bchoose\s*\(/.test(text)) {
    problems.push(`${path} calls choose( outside storage/: ${fix}`);
  }
  if (/\bdialect\s*\.\s*name\b/.test(text)) {
    problems.push(`${path} tests dialect.name outside storage/: ${fix}`);
  }
  for (const match of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)["']([^"']+)["']/g)) {
    const specifier = match[1] ?? "";
    const target = specifier.startsWith(".")
      ? posix.normalize(posix.join(posix.dirname(path), specifier))
      : specifier;
    if (/(^|\/)storage\/(sqlite|postgres)(\/|\.js$|$)/.test(target)) {
      problems.push(
        `${path} imports the backend ${specifier} outside storage/: ${fix} (or import storage/index.js)`,
      );
    }
  }
  return problems;
}

/** True when a relative import from `fromPath` lands in the src/ of a different package. */
function reachesAnotherPackageSource(fromPath: string, specifier: string): boolean {
  if (!specifier.startsWith(".")) return false;
  const target = posix.normalize(posix.join(posix.dirname(fromPath), specifier));
  const owner = (p: string) => p.split("/").slice(0, 2).join("/");
  return owner(target) !== owner(fromPath) && /^(packages|apps)\/[^/]+\/src\//.test(target);
}

function listFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir)) {
    if (entry === "node_modules" || entry === "dist") continue;
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) listFiles(full, out);
    else if (/\.(ts|mts|js|mjs)$/.test(entry)) out.push(full);
  }
  return out;
}

/** Reads every package.json and source file of the workspace at `root`. */
export function readWorkspace(root: string): {
  manifests: PackageManifest[];
  sources: SourceFile[];
} {
  const manifests: PackageManifest[] = [];
  const sources: SourceFile[] = [];
  for (const group of ["packages", "apps"]) {
    for (const name of readdirSync(join(root, group))) {
      const dir = join(root, group, name);
      const manifestPath = join(dir, "package.json");
      try {
        manifests.push({
          dir: `${group}/${name}`,
          json: JSON.parse(readFileSync(manifestPath, "utf8")),
        });
      } catch {
        continue;
      }
      for (const sub of ["src", "test"]) {
        try {
          for (const file of listFiles(join(dir, sub)))
            sources.push({ path: relative(root, file), text: readFileSync(file, "utf8") });
        } catch {
          // a package without tests or sources yet
        }
      }
    }
  }
  return { manifests, sources };
}
