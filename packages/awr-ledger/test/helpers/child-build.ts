import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * Child processes in tests run the package's real code: its sources are transpiled (no type
 * check) into a temporary directory whose node_modules links to the package's own, so bare
 * imports resolve as they do in the package. `without` leaves those packages out of that
 * node_modules (an install where they are not beside the ledger). Returns the entry path and a
 * cleanup function.
 */
export function buildPackageForChildren(options: { without?: readonly string[] } = {}): {
  entry: string;
  testingEntry: string;
  dir: string;
  remove(): void;
} {
  const dir = mkdtempSync(join(tmpdir(), "awr-ledger-build-"));
  const src = join(packageDir, "src");
  const walk = (from: string): void => {
    for (const entry of readdirSync(from, { withFileTypes: true })) {
      const path = join(from, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) {
        const out = join(dir, "src", relative(src, path)).replace(/\.ts$/, ".js");
        mkdirSync(dirname(out), { recursive: true });
        const { outputText } = ts.transpileModule(readFileSync(path, "utf8"), {
          compilerOptions: {
            module: ts.ModuleKind.ESNext,
            target: ts.ScriptTarget.ES2022,
            verbatimModuleSyntax: false,
          },
        });
        writeFileSync(out, outputText);
      }
    }
  };
  walk(src);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  const modules = join(packageDir, "node_modules");
  if (options.without === undefined) symlinkSync(modules, join(dir, "node_modules"), "dir");
  else {
    mkdirSync(join(dir, "node_modules"));
    for (const name of readdirSync(modules)) {
      if (options.without.includes(name)) continue;
      symlinkSync(join(modules, name), join(dir, "node_modules", name), "dir");
    }
  }
  return {
    entry: join(dir, "src", "index.js"),
    testingEntry: join(dir, "src", "testing", "index.js"),
    dir,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
