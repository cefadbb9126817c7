/**
 * A copy of the `awr` and `awr-mcp` programs that any user can run, for the tests that start
 * them as an unprivileged user (apps/cli's readonly-ledger). The run's own bundles
 * (build-programs.ts) load third-party modules and the sources' neighbouring files from the
 * clone, by absolute path; a user who cannot enter the clone's directory (a clone under a
 * private `mktemp -d` or home directory) cannot load them. This copies what the programs run
 * into a fresh directory readable by everyone and bundles the programs from that copy:
 * - every workspace package's package.json, src/ and node_modules/ links (pnpm's relative
 *   symbolic links, kept as they are, so they point inside the copy);
 * - of the store (node_modules/.pnpm), the entries the packages' production dependencies reach,
 *   following each entry's own dependency links: about 160 entries and 90 MB, copied in a second
 *   or two (the whole store would take several).
 * The copy lives until the caller removes its directory.
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
// Plain JavaScript with its own declarations (readable-programs.d.mts), like test-programs.mjs,
// so that packages whose type check stops at their own directory can import it.
import { buildPrograms, REPOSITORY_ROOT } from "./build-programs.ts";

const WORKSPACE_GROUPS = ["packages", "apps"];

/** The workspace packages' directories, relative to the root (`packages/awr-ledger`, ...). */
/** @param {string} root @returns {string[]} */
function workspacePackages(root) {
  return WORKSPACE_GROUPS.flatMap((group) =>
    readdirSync(join(root, group)).map((name) => `${group}${sep}${name}`),
  );
}

/** The names in a `node_modules` directory, scoped ones as `@scope/name`. */
/** @param {string} nodeModules @returns {string[]} */
function moduleNames(nodeModules) {
  if (!existsSync(nodeModules)) return [];
  return readdirSync(nodeModules).flatMap((name) =>
    name.startsWith("@")
      ? readdirSync(join(nodeModules, name)).map((scoped) => `${name}/${scoped}`)
      : name.startsWith(".")
        ? []
        : [name],
  );
}

/** The store entries (`node_modules/.pnpm/<entry>`) the workspace's production dependencies need. */
/** @param {string} root @returns {string[]} */
function runtimeStoreEntries(root) {
  const store = join(root, "node_modules", ".pnpm");
  const found = new Set();
  /** @type {string[]} */
  const pending = [];
  /** @param {string} link */
  const reach = (link) => {
    if (!existsSync(link)) return; // an optional dependency not installed here
    const target = relative(store, realpathSync(link));
    if (target.startsWith("..")) return; // a workspace package: copied whole
    const entry = /** @type {string} */ (target.split(sep)[0]);
    if (!found.has(entry)) {
      found.add(entry);
      pending.push(entry);
    }
  };
  for (const dir of workspacePackages(root)) {
    const manifest = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8"));
    const names = Object.keys({
      ...manifest.dependencies,
      ...manifest.optionalDependencies,
      ...manifest.peerDependencies,
    });
    for (const name of names) reach(join(root, dir, "node_modules", name));
  }
  for (let entry = pending.pop(); entry !== undefined; entry = pending.pop()) {
    const nodeModules = join(store, entry, "node_modules");
    for (const name of moduleNames(nodeModules)) {
      const path = join(nodeModules, name);
      if (lstatSync(path).isSymbolicLink()) reach(path);
    }
  }
  return [...found].sort();
}

/** `cp -a` (GNU coreutils): keeps symbolic links as links and copies fast. */
/** @param {string} destination @param {string[]} sources */
function copyInto(destination, sources) {
  if (sources.length > 0) execFileSync("cp", ["-a", ...sources, destination]);
}

/**
 * Copies the programs' runtime into a fresh directory under the system's temporary directory,
 * readable and traversable by every user, and bundles `awr.js` and `awr-mcp.js` into its
 * `programs/`. Returns the copy's directory and the programs' directory.
 */
export async function readablePrograms(root = REPOSITORY_ROOT) {
  const dir = mkdtempSync(join(tmpdir(), "awr-readable-programs-"));
  for (const pkg of workspacePackages(root)) {
    const copy = join(dir, pkg);
    mkdirSync(copy, { recursive: true });
    const parts = ["package.json", "src", "node_modules"].map((part) => join(root, pkg, part));
    copyInto(
      copy,
      parts.filter((part) => existsSync(part)),
    );
  }
  const store = join(dir, "node_modules", ".pnpm");
  mkdirSync(store, { recursive: true });
  copyInto(
    store,
    runtimeStoreEntries(root).map((entry) => join(root, "node_modules", ".pnpm", entry)),
  );
  const programs = join(dir, "programs");
  await buildPrograms(programs, dir);
  // The clone's own modes may keep others out (a private umask): everyone may read and enter.
  execFileSync("chmod", ["-R", "a+rX", dir]);
  chmodSync(dir, 0o755);
  return { dir, programs };
}
