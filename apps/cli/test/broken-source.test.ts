import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awr, demoProject, removeTemps } from "./support/cli-harness.js";

/**
 * A planning source with a YAML error: every local read refuses to index it (the previous
 * projection is kept), and the person at the terminal reads where the file is wrong, at most
 * five `file:line: message` lines and how many more, never the JSON of every issue; the next
 * step is to fix the file and reindex, from a read and from `awr doctor` alike (not a database
 * backup). `--json` keeps every issue.
 */

let root: string;
let ledger: string;
let good: string;

beforeAll(async () => {
  root = await demoProject();
  ledger = join(root, "work-ledger.yaml");
  good = await readFile(ledger, "utf8");
  // An unclosed flow sequence under W-1: the YAML parser reports a problem on most lines after.
  await writeFile(
    ledger,
    good.replace("    title: Cart page\n", "    title: Cart page\n   bad: [unclosed\n"),
  );
});
afterAll(removeTemps);

const STEP =
  "next: Fix the file at the line named above, then run `awr source reindex` (a local read reindexes by itself).";

describe("a source with a YAML error", () => {
  it("is named by file and line, five issues at most and a count, with the fix as next step", async () => {
    const json = await awr(["--json", "status"], { cwd: root });
    expect(json.code).toBe(1);
    const issues = json.error().details?.["issues"] as {
      path: string;
      line: number;
      message: string;
    }[];
    expect(issues.length).toBeGreaterThan(5);
    for (const words of [["status"], ["ready"], ["work", "show", "W-2"]]) {
      const human = await awr(words, { cwd: root });
      expect(human.code, words.join(" ")).toBe(1);
      const lines = human.stderr.trimEnd().split("\n");
      expect(lines[0]).toMatch(/^error \[InvalidInput\]: Cannot index work-ledger\.yaml:\d+: /);
      expect(lines.slice(1, 6)).toEqual(
        issues.slice(0, 5).map((i) => `  ${i.path}:${i.line}: ${i.message}`),
      );
      expect(lines[6]).toBe(`  and ${issues.length - 5} more (--json lists every one)`);
      expect(lines.slice(7)).toEqual([STEP]);
      expect(human.stderr).not.toContain("[{");
      expect(human.stderr).not.toContain("backup");
    }
  });

  it("gets the same advice from awr doctor, not a database backup", async () => {
    const doctor = await awr(["doctor"], { cwd: root });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/source_access_failed\s+source:work-ledger\.yaml/);
    const lines = doctor.stderr.trimEnd().split("\n");
    expect(lines.at(-1)).toBe(STEP);
    expect(doctor.stderr).not.toContain("backup");
  });

  it("reads again once the file is fixed", async () => {
    await writeFile(ledger, good);
    const status = await awr(["status"], { cwd: root });
    expect(status.stderr).toBe("");
    expect(status.code).toBe(0);
    expect((await awr(["doctor"], { cwd: root })).code).toBe(0);
  });
});
