import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * Every workspace package's `test` script runs that package's own tests (through the root vitest
 * config, filtered to the package's folder), so `pnpm test` inside a package or
 * `pnpm --filter <name> test` at the root never passes by running nothing.
 */

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

const packageDirs = ["packages", "apps"].flatMap((group) =>
  readdirSync(join(ROOT, group)).map((name) => `${group}/${name}`),
);

function manifest(dir: string): { name: string; scripts?: Record<string, string> } {
  return JSON.parse(readFileSync(join(ROOT, dir, "package.json"), "utf8"));
}

describe("per-package test scripts", () => {
  it.each(packageDirs)("%s has a test script that runs its own test folder", (dir) => {
    expect(manifest(dir).scripts?.test).toBe(`vitest run --config ../../vitest.config.ts ${dir}/`);
    expect(readdirSync(join(ROOT, dir, "test")).some((file) => file.endsWith(".test.ts"))).toBe(
      true,
    );
  });

  it("`pnpm test` in a package runs exactly that package's tests", () => {
    const out = mkdtempSync(join(tmpdir(), "awr-package-test-"));
    try {
      const report = join(out, "report.json");
      const env: NodeJS.ProcessEnv = { ...process.env, AWR_TEST_NO_PG: "1" };
      // This run's own report must not be overwritten by the nested run.
      delete env["AWR_TEST_JSON_REPORT"];
      execFileSync("pnpm", ["run", "test", "--reporter=json", `--outputFile=${report}`], {
        cwd: join(ROOT, "packages/jsonrpc-core"),
        env,
        stdio: "pipe",
      });
      const result = JSON.parse(readFileSync(report, "utf8")) as {
        numPassedTests: number;
        numFailedTests: number;
        testResults: { name: string }[];
      };
      expect(result.numFailedTests).toBe(0);
      expect(result.numPassedTests).toBeGreaterThan(0);
      const files = result.testResults.map((file) => file.name.slice(ROOT.length));
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) expect(file).toMatch(/^packages\/jsonrpc-core\/test\//);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});
