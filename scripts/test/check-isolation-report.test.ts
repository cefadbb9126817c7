import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

/** scripts/check-isolation-report.mjs on vitest JSON reports made up for each case. */
const SCRIPT = fileURLToPath(new URL("../check-isolation-report.mjs", import.meta.url));
const IDS = (
  JSON.parse(
    readFileSync(
      new URL("../../apps/service/test/isolation/conditions.json", import.meta.url),
      "utf8",
    ),
  ) as { conditions: { id: string }[] }
).conditions.map((c) => c.id);
const FILE = "/repo/apps/service/test/isolation/claims-race.test.ts";
const dir = mkdtempSync(join(tmpdir(), "awr-isolation-report-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Result = { ancestorTitles: string[]; title: string; status: string };
const every = (status = "passed"): Result[] =>
  IDS.flatMap((id) =>
    ["sqlite", "postgres"].map((b) => ({ ancestorTitles: [b], title: id, status })),
  );

function check(results: Result[]): { code: number; out: string } {
  const file = join(dir, `report-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify({ testResults: [{ name: FILE, assertionResults: results }] }));
  try {
    return {
      code: 0,
      out: execFileSync(process.execPath, [SCRIPT, file], { encoding: "utf8", stdio: "pipe" }),
    };
  } catch (error) {
    const e = error as { status: number; stdout: string; stderr: string };
    return { code: e.status, out: `${e.stdout}${e.stderr}` };
  }
}

describe("the isolation report check", () => {
  it("passes when every condition passed on both backends, printing the matrix", () => {
    const { code, out } = check(every());
    expect(code).toBe(0);
    expect(out).toContain("40 of 40 condition cases passed");
    expect(out).toMatch(/claim_compare_revision_processes\s+passed\s+passed/);
  });

  it("fails on a skipped, a failed, a missing or a repeated case", () => {
    const results = every();
    results[0]!.status = "skipped";
    results[3]!.status = "failed";
    const { code, out } = check([...results.slice(0, -1), results[5]!]);
    expect(code).toBe(1);
    expect(out).toContain("36 of 40 condition cases passed");
    expect(out).toMatch(new RegExp(`${IDS[0]}\\s+skipped`));
    expect(out).toMatch(/missing/);
    expect(out).toMatch(/x2/);
  });

  it("fails on an id conditions.json does not list, or a case outside a backend describe", () => {
    const unknown = check([
      ...every(),
      { ancestorTitles: ["sqlite"], title: "claim_renamed", status: "passed" },
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.out).toContain('unknown condition id "claim_renamed"');
    const loose = check([
      ...every(),
      { ancestorTitles: ["other"], title: IDS[0] as string, status: "passed" },
    ]);
    expect(loose.code).toBe(1);
    expect(loose.out).toContain('not inside a "sqlite" or "postgres" describe');
  });
});
