import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { inspectPackage, PACKED_BOUNDS } from "../check-tarballs.mjs";

// The packages ship what runs: their builds write no source or declaration maps, and a package
// built and packed as `pnpm check:packages` packs it holds none, within its size bound.
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSC = createRequire(join(ROOT, "package.json")).resolve("typescript/bin/tsc");
const PACKAGE_DIRS = ["packages", "apps"].flatMap((group) =>
  readdirSync(join(ROOT, group)).map((name) => `${group}/${name}`),
);

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

describe("published packages", () => {
  it.each(PACKAGE_DIRS)("%s builds without source or declaration maps", (dir) => {
    const config = JSON.parse(
      execFileSync(
        process.execPath,
        [TSC, "-p", join(ROOT, dir, "tsconfig.build.json"), "--showConfig"],
        {
          encoding: "utf8",
        },
      ),
    ) as { compilerOptions: Record<string, unknown> };
    expect(config.compilerOptions["sourceMap"] ?? false).toBe(false);
    expect(config.compilerOptions["declarationMap"] ?? false).toBe(false);
  });

  it("packs a package built as published with no map, within its bound", () => {
    // A copy of @awr/jsonrpc-core built by its own build config, beside the shared base config.
    const copy = mkdtempSync(join(tmpdir(), "awr-tarball-test-"));
    temps.push(copy);
    cpSync(join(ROOT, "tsconfig.base.json"), join(copy, "tsconfig.base.json"));
    symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"), "dir");
    const pkg = join(copy, "packages", "jsonrpc-core");
    for (const entry of ["package.json", "README.md", "tsconfig.build.json", "src"]) {
      cpSync(join(ROOT, "packages", "jsonrpc-core", entry), join(pkg, entry), { recursive: true });
    }
    execFileSync(process.execPath, [TSC, "-p", join(pkg, "tsconfig.build.json")], {
      stdio: "pipe",
    });
    const built = readdirSync(join(pkg, "dist"), { recursive: true }).map(String);
    expect(built).toContain("index.js");
    expect(built.filter((f) => f.endsWith(".map"))).toEqual([]);
    // The tarball kept for the scripts that install it (CI's AWR_PACKED_TARBALLS).
    const kept = mkdtempSync(join(tmpdir(), "awr-tarball-kept-"));
    temps.push(kept);
    const report = inspectPackage(pkg, PACKED_BOUNDS, kept);
    expect(readdirSync(kept).filter((f) => f.endsWith(".tgz"))).toHaveLength(1);
    expect(report.name).toBe("@awr/jsonrpc-core");
    expect(report.paths).toContain("package/dist/index.js");
    expect(report.paths.filter((p) => p.endsWith(".map"))).toEqual([]);
    expect(report.problems).toEqual([]);
    expect(report.packed).toBeLessThanOrEqual(PACKED_BOUNDS.default);
  });
});
