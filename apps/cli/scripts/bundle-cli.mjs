// Build step after tsc: writes the `awr` binary (dist/main.js, the package's `bin`) as an ES
// module bundle of the CLI's sources with @awr/awr-ledger, kysely, picocolors and the ledger's
// other small pure-JS dependencies, split at the dynamic imports into chunks under
// dist/bin-chunks/ so that a command still loads only what it runs (esbuild splits; then
// merge-bin-chunks.mjs regroups its many small chunks into fewer files). A cold `awr` read used to resolve, read and compile
// about 150 modules one by one (and kysely's ~260 through its CommonJS bundle), which was most of
// its start-up. The library entry (dist/index.js and the rest of tsc's output) is unchanged.
//
// Left out and loaded at run time as before, each resolved from this package:
// - native or optional drivers (better-sqlite3, pg), and what the ledger requires lazily by path
//   (yaml, markdown-it, gpt-tokenizer: its internal/lazy-dependencies.ts), whose requires stay
//   relative to the ledger's own files;
// - the MCP stacks (@awr/mcp-client for remote mode, @awr/awr-server for registry checks),
//   which only some commands load, through dynamic import;
// - commander (required as CommonJS, see src/internal/commander.ts).
//
// No bundled module imports a CommonJS package: the first such import makes Node start its
// CommonJS export scanner, a cost of its own at every start.
//
// Bundled modules that find files next to themselves through `import.meta.url` (the ledger's token
// ranks and parse worker, this package's package.json) get their own URL back: each use is
// rewritten to the module's URL in its installed package, found at run time from that package's
// exported package.json, so they behave exactly as unbundled.
import { readFileSync, rmSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { kyselyReexport } from "./kysely-reexport.mjs";
import { mergeBinChunks } from "./merge-bin-chunks.mjs";

const PACKAGE_ROOT = fileURLToPath(new URL("..", import.meta.url)).replace(/[\\/]$/, "");
const DIST = join(PACKAGE_ROOT, "dist");
const CHUNKS = "bin-chunks";
/** esbuild's own output, before merge-bin-chunks.mjs regroups it into DIST; removed after. */
const STAGE = join(DIST, ".bin-stage");
const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8"));
const EXTERNAL = ["better-sqlite3", "pg", "commander", "@awr/awr-server", "@awr/mcp-client"];
for (const name of EXTERNAL) {
  if (manifest.dependencies?.[name] === undefined) {
    throw new Error(`bundle-cli: ${name} is left out of the bundle but is not a dependency`);
  }
}

/**
 * The package a file belongs to: its root directory and name.
 * @param {string} file
 * @returns {{ root: string; name: string }}
 */
function packageOf(file) {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    let json;
    try {
      json = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    } catch {
      continue; // no package.json here: look further up
    }
    if (typeof json.name === "string") return { root: dir, name: json.name };
  }
  throw new Error(`bundle-cli: no package.json above ${file}`);
}

const ROOT_MODULE = "awr-package-root:";
/** @param {string} path */
const slash = (path) => path.split(sep).join("/");

/** @type {import("esbuild").Plugin} */
const moduleUrls = {
  name: "module-urls",
  setup(b) {
    b.onResolve({ filter: /^awr-package-root:/ }, (args) => ({
      path: args.path.slice(ROOT_MODULE.length),
      namespace: "awr-package-root",
    }));
    // A package's root URL, from its exported package.json (resolved from this package, which
    // depends on it or is it).
    b.onLoad({ filter: /.*/, namespace: "awr-package-root" }, (args) => ({
      contents:
        'import { createRequire } from "node:module";\nimport { pathToFileURL } from "node:url";\n' +
        `export default new URL(".", pathToFileURL(createRequire(import.meta.url).resolve(${JSON.stringify(`${args.path}/package.json`)}))).href;\n`,
      loader: "js",
      resolveDir: PACKAGE_ROOT,
    }));
    b.onLoad({ filter: /\.[cm]?[jt]s$/ }, (args) => {
      const text = readFileSync(args.path, "utf8");
      const loader = args.path.endsWith(".ts") ? "ts" : "js";
      const owner = packageOf(args.path);
      const inPackage = slash(relative(owner.root, args.path));
      if (owner.name === "@awr/awr-ledger" && inPackage === "dist/internal/kysely.js") {
        return { contents: kyselyReexport(text, args.path), loader };
      }
      if (!text.includes("import.meta.url")) return { contents: text, loader };
      if (owner.name !== manifest.name && manifest.dependencies?.[owner.name] === undefined) {
        throw new Error(
          `bundle-cli: ${args.path} uses import.meta.url, but ${owner.name} is not a dependency of ${manifest.name}, so its files cannot be found at run time`,
        );
      }
      // This package's sources stand for the modules tsc writes in dist/.
      const path =
        owner.name === manifest.name
          ? inPackage.replace(/^src\//, "dist/").replace(/\.ts$/, ".js")
          : inPackage;
      const prelude = `import __awrPackageRoot from ${JSON.stringify(ROOT_MODULE + owner.name)};\n`;
      const url = `new URL(${JSON.stringify(path)}, __awrPackageRoot).href`;
      const rewritten = text.replaceAll("import.meta.url", url);
      // A shebang must stay the first line.
      const shebang = rewritten.startsWith("#!")
        ? rewritten.slice(0, rewritten.indexOf("\n") + 1)
        : "";
      return { contents: shebang + prelude + rewritten.slice(shebang.length), loader };
    });
  },
};

for (const dir of [join(DIST, CHUNKS), STAGE]) rmSync(dir, { recursive: true, force: true });
await build({
  entryPoints: { main: join(PACKAGE_ROOT, "src", "main.ts") },
  outdir: STAGE,
  splitting: true,
  chunkNames: `${CHUNKS}/[name]-[hash]`,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  external: EXTERNAL,
  plugins: [moduleUrls],
  // Whitespace and syntax are compacted (V8 parses every byte of a module it loads: this takes
  // about a third off what a read compiles, most of it kysely); identifiers stay readable, and
  // class and function names as written: errors and SQL dialects are told apart by name.
  minifyWhitespace: true,
  minifySyntax: true,
  keepNames: true,
  // The ledger's one import kept for nothing but its types (a schema augmentation) is dropped.
  logOverride: { "ignored-bare-import": "silent" },
  // No source maps: the package ships what runs (the maps were most of its tarball).
  sourcemap: false,
  legalComments: "inline",
  logLevel: "warning",
});
await mergeBinChunks({ entry: join(STAGE, "main.js"), outDir: DIST, chunksDir: CHUNKS });
rmSync(STAGE, { recursive: true, force: true });
