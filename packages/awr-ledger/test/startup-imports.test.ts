import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// What the ledger loads when it is imported decides how fast `awr` starts (every CLI run is a
// new process). These checks keep the costly imports where start-up does not pay for them.
const SRC = fileURLToPath(new URL("../src", import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The module specifiers a file imports or re-exports values from (type-only ones left out). */
function valueImports(text: string): string[] {
  const statements = text.match(/^(?:import|export)\s[^;]*?\sfrom\s+"[^"]+";/gms) ?? [];
  return statements
    .filter((statement) => !/^(?:import|export)\s+type\s/.test(statement))
    .map((statement) => statement.match(/"([^"]+)";$/)?.[1] ?? "");
}

const files = sourceFiles(SRC).filter((file) => !file.includes(`${join(SRC, "fixtures")}`));

describe("the ledger's start-up imports", () => {
  it("take kysely's values only through internal/kysely.ts (its CommonJS build)", () => {
    const offenders = files
      .filter((file) => !file.endsWith(join("internal", "kysely.ts")))
      .filter((file) => valueImports(readFileSync(file, "utf8")).includes("kysely"))
      .map((file) => relative(SRC, file));
    expect(offenders).toEqual([]);
  });

  it("load the parsers and the token tables only on first use", () => {
    const heavy = ["markdown-it", "yaml", "gpt-tokenizer/encoding/o200k_base", "better-sqlite3"];
    const offenders = files.flatMap((file) =>
      valueImports(readFileSync(file, "utf8"))
        .filter((specifier) => heavy.includes(specifier))
        .map((specifier) => `${relative(SRC, file)} imports ${specifier}`),
    );
    expect(offenders).toEqual([]);
  });

  it("open a SQLite database with better-sqlite3's addon named, not searched for", () => {
    const dir = mkdtempSync(join(tmpdir(), "awr-open-sqlite-"));
    try {
      const child = fileURLToPath(new URL("fixtures/open-sqlite-child.ts", import.meta.url));
      const loaded = JSON.parse(
        execFileSync(process.execPath, ["--import", "tsx", child, dir], {
          cwd: fileURLToPath(new URL("..", import.meta.url)),
          encoding: "utf8",
        }),
      ) as string[];
      expect(loaded.filter((path) => path.endsWith("better_sqlite3.node"))).toHaveLength(1);
      expect(loaded.filter((path) => /[\\/]bindings[\\/]/.test(path))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
