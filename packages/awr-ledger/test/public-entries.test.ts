import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// The package's public entries (README "API"): a main entry of at most 60 chosen names, and
// subpaths for the rest, each listed in both export maps with the same built files.
const PACKAGE = fileURLToPath(new URL("..", import.meta.url));
const manifest = JSON.parse(readFileSync(join(PACKAGE, "package.json"), "utf8")) as {
  exports: Record<string, string | Record<string, string>>;
  publishConfig: { exports: Record<string, string | Record<string, string>> };
  files: string[];
};
const MAIN_ENTRY_LIMIT = 60;

type Conditions = Record<string, string>;
/** The published entries (not the workspace-only `./testing`), with their conditions. */
const entries = Object.entries(manifest.exports).filter(
  (entry): entry is [string, Conditions] =>
    typeof entry[1] !== "string" && entry[0] in manifest.publishConfig.exports,
);

/** Every name (value or type) the module at `file` exports, as the type checker sees them. */
function exportedNames(file: string): string[] {
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2023,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  });
  const source = program.getSourceFile(file);
  if (source === undefined) throw new Error(`no source file ${file}`);
  const checker = program.getTypeChecker();
  const symbol = checker.getSymbolAtLocation(source);
  if (symbol === undefined) throw new Error(`${file} is not a module`);
  return checker.getExportsOfModule(symbol).map((s) => s.getName());
}

describe("public entries", () => {
  it("publishes the main entry and its subpaths, and no fixtures", () => {
    expect(Object.keys(manifest.publishConfig.exports)).toEqual([
      ".",
      "./catalog",
      "./context",
      "./drivers",
      "./open",
      "./secrets",
      "./sources",
      "./workstreams",
      "./package.json",
    ]);
  });

  it("lists each published entry in the workspace's export map with the same built files", () => {
    const inWorkspace = Object.keys(manifest.exports).filter((key) => key !== "./testing");
    expect(inWorkspace).toEqual(Object.keys(manifest.publishConfig.exports));
    for (const [key, published] of Object.entries(manifest.publishConfig.exports)) {
      const own = manifest.exports[key];
      if (typeof published === "string") {
        expect(own, key).toBe(published);
        continue;
      }
      const { "@awr/source": source, ...built } = own as Conditions;
      expect(built, key).toEqual(published);
      // The source an entry runs from in the workspace is the one its built files come from.
      expect(source?.replace(/^\.\/src\//, "./dist/").replace(/\.ts$/, ".js"), key).toBe(
        published["import"],
      );
    }
  });

  it.each(entries)("%s names every export (no `export *`)", (_key, conditions) => {
    const text = readFileSync(join(PACKAGE, conditions["@awr/source"] ?? ""), "utf8");
    expect(text).not.toMatch(/export\s+(type\s+)?\*/);
  });

  it(`keeps the main entry at most ${MAIN_ENTRY_LIMIT} names`, () => {
    const names = exportedNames(join(PACKAGE, "src/index.ts"));
    expect(names.length).toBeGreaterThan(0);
    expect(names.length).toBeLessThanOrEqual(MAIN_ENTRY_LIMIT);
  });
});
