/**
 * The `awr` and `awr-mcp` programs the tests start as processes, bundled from their TypeScript
 * sources once per test run (by the global setup) instead of compiled by tsx in every process.
 * A process started through tsx spends about a second registering its loader and resolving and
 * transforming some 200 source files; the suites that drive real processes start hundreds.
 *
 * What a bundle holds and what it leaves to Node keeps a process the same program as from
 * sources:
 * - the workspace's own sources (`@awr/*` under the `@awr/source` condition) are bundled;
 * - every third-party import stays an import, of the file esbuild resolved from the importing
 *   source (an absolute path), so Node loads the same files it loads for a source run, natives
 *   included, wherever the bundle lies; except kysely, bundled as the published `awr` bundles it:
 *   the ledger requires kysely's CommonJS build at run time (its internal/kysely.ts), about 260
 *   files to load in every process, a fifth of a process's CPU;
 * - `import.meta.url` in a source file becomes that file's own URL, so what it finds beside
 *   itself (package.json, token ranks, the parse worker) and what it requires lazily resolve
 *   exactly as from sources.
 */
import { readFile } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Plugin } from "esbuild";
import { kyselyReexport } from "../../apps/cli/scripts/kysely-reexport.mjs";

/** The repository this file is in: the default workspace to bundle from. */
export const REPOSITORY_ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Each program: its bundle's name (`<name>.js` in the output directory) and its source entry. */
function programEntries(root: string): Record<"awr" | "awr-mcp", string> {
  return {
    awr: join(root, "apps/cli/src/main.ts"),
    "awr-mcp": join(root, "apps/service/src/main.ts"),
  };
}

/** Marks resolving a bare specifier on the plugin's behalf, so that it does not recurse. */
const INNER = Symbol("inner resolve");

function asFromSources(root: string): Plugin {
  const ledgerKysely = join(root, "packages/awr-ledger/src/internal/kysely.ts");
  return {
    name: "as-from-sources",
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData === INNER || args.path.startsWith("node:") || isAbsolute(args.path))
          return undefined;
        if (args.path.startsWith("@awr/") || args.path === "kysely") return undefined;
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: INNER,
        });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        // A Node built-in named without `node:` resolves to no file: it stays as written.
        if (resolved.external || resolved.path === "") return { path: args.path, external: true };
        return { path: resolved.path, external: true };
      });
      build.onLoad({ filter: /\.ts$/ }, async (args) => {
        const read = await readFile(args.path, "utf8");
        const text = args.path === ledgerKysely ? kyselyReexport(read, args.path) : read;
        const ownUrl = JSON.stringify(pathToFileURL(args.path).href);
        return { contents: text.replaceAll("import.meta.url", ownUrl), loader: "ts" };
      });
    },
  };
}

/**
 * Writes `awr.js` and `awr-mcp.js` (and their shared chunks) into `outdir`, bundled from the
 * workspace at `root` (this repository, or a copy of it: readable-programs.ts).
 */
export async function buildPrograms(outdir: string, root = REPOSITORY_ROOT): Promise<void> {
  const { build } = await import("esbuild");
  await build({
    entryPoints: programEntries(root),
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    conditions: ["@awr/source"],
    plugins: [asFromSources(root)],
    logLevel: "error",
  });
}
