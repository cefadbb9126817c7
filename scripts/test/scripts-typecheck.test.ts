import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The bench and check scripts are JavaScript that CI type-checks: scripts/tsconfig.json (checkJs,
 * strict) takes in every script folder, and the root `pnpm typecheck` runs it after the packages.
 * A script folder the config missed, or a config that stopped reading JavaScript, would let a
 * type error in a script through CI unseen.
 */

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CONFIG = join(ROOT, "scripts/tsconfig.json");

/** The folders whose `.mjs` files are bench and check scripts. */
const SCRIPT_DIRS = [
  "scripts",
  "scripts/bench",
  "scripts/test",
  ...["apps", "packages"].flatMap((group) =>
    readdirSync(join(ROOT, group)).map((name) => `${group}/${name}/scripts`),
  ),
];

function scriptFiles(): string[] {
  return SCRIPT_DIRS.flatMap((dir) => {
    let names: string[];
    try {
      names = readdirSync(join(ROOT, dir));
    } catch {
      return [];
    }
    return names.filter((name) => name.endsWith(".mjs")).map((name) => resolve(ROOT, dir, name));
  });
}

function parsedConfig(): ts.ParsedCommandLine {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    CONFIG,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
      },
    },
  );
  if (parsed === undefined) throw new Error(`cannot read ${CONFIG}`);
  return parsed;
}

describe("the scripts are type-checked in CI", () => {
  it("scripts/tsconfig.json checks every script, strictly", () => {
    const { options, fileNames } = parsedConfig();
    expect(options.checkJs).toBe(true);
    expect(options.strict).toBe(true);
    // strict's implicit-any check stays on: an untyped parameter is an error, not `any`.
    expect(options.noImplicitAny).not.toBe(false);
    expect(options.noEmit).toBe(true);
    const checked = new Set(fileNames.map((file) => resolve(file)));
    const scripts = scriptFiles();
    expect(scripts.length).toBeGreaterThan(30);
    expect(scripts.filter((file) => !checked.has(file))).toEqual([]);
  });

  it("the root typecheck runs it", () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    expect(scripts.typecheck).toContain("pnpm run typecheck:scripts");
    expect(scripts["typecheck:scripts"]).toBe("tsc -p scripts/tsconfig.json");
  });

  it("reports a type error in a script", () => {
    const { options } = parsedConfig();
    // One small script, with a call that passes a number where the JSDoc asks for a string.
    const target = resolve(ROOT, "scripts/awr-json.mjs");
    const broken = `${readFileSync(target, "utf8")}\nawr(42, ["status"]);\n`;
    const host = ts.createCompilerHost(options);
    const readFile = host.readFile.bind(host);
    host.readFile = (file) => (resolve(file) === target ? broken : readFile(file));
    const getSourceFile = host.getSourceFile.bind(host);
    host.getSourceFile = (file, language, onError) =>
      resolve(file) === target
        ? ts.createSourceFile(file, broken, language)
        : getSourceFile(file, language, onError);
    const program = ts.createProgram([target], options, host);
    const errors = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file !== undefined && resolve(d.file.fileName) === target)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    expect(errors).toEqual([
      "Argument of type 'number' is not assignable to parameter of type 'string'.",
    ]);
  });
});
