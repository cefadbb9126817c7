import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awr, demoProject, removeTemps } from "./support/cli-harness.js";

const BIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const SHA = "b".repeat(40);
const CRITERIA = [
  "The callback marks the order paid exactly once",
  "No card number reaches our servers or logs",
];
const AGENT = ["--agent", "builder", "--provider", "example-provider", "--model", "example-model"];

let root: string;
beforeAll(async () => {
  root = await demoProject();
});
afterAll(removeTemps);

describe("work assess, work manage and work prepare-completion", () => {
  it("assesses a work item through the built binary without changing the revision", () => {
    const run = (words: string[]) =>
      spawnSync(process.execPath, [BIN, "--project", root, "--json", ...words], {
        encoding: "utf8",
      });
    const before = JSON.parse(run(["status"]).stdout).project_revision;
    const assessed = run(["work", "assess", "W-3"]);
    expect(assessed.status).toBe(0);
    const value = JSON.parse(assessed.stdout);
    expect(value).toMatchObject({
      ok: true,
      work: "W-3",
      record_required: true,
      decision: { mode: "undetermined" },
    });
    expect(value.contract_fingerprint).toMatch(/^sha256:/);
    expect(JSON.parse(run(["status"]).stdout).project_revision).toBe(before);
    const missing = run(["work", "assess", "NOPE"]);
    expect(missing.status).not.toBe(0);
    expect(JSON.parse(missing.stderr.trim().split("\n").at(-1) ?? "{}").code).toBe("NotFound");
  });

  it("records observations from --input FILE, with the file's expected_revision", async () => {
    const start = await awr(
      ["--json", "session", "start", "--work", "W-3", "--conversation", "manage", ...AGENT],
      { cwd: root },
    );
    expect(start.code).toBe(0);
    const session = start.json<{ session: { id: string } }>().session.id;
    const assessed = (await awr(["--json", "work", "assess", "W-3"], { cwd: root })).json<{
      contract_fingerprint: string;
      project_revision: number;
    }>();
    const request = {
      work: "W-3",
      session,
      expected_revision: assessed.project_revision,
      request_key: "cli-1",
      contract_fingerprint: assessed.contract_fingerprint,
      observation: {
        observed_at: Date.now() - 1000,
        note: "Two people share the payment work",
        single_executor: false,
      },
    };
    await writeFile(join(root, "manage.json"), JSON.stringify(request));
    const managed = await awr(["--json", "work", "manage", "--input", "manage.json"], {
      cwd: root,
    });
    expect(managed.code, managed.stderr).toBe(0);
    expect(managed.json()).toMatchObject({
      already_recorded: false,
      source_write_performed: false,
      assessment: { decision: { mode: "continuous" } },
    });
    // The same file again is the same record; the file's revision is now stale, and says so.
    const again = await awr(["--json", "work", "manage", "--input", "manage.json"], { cwd: root });
    expect(again.code, again.stderr).toBe(0);
    expect(again.json()).toMatchObject({ already_recorded: true });
    await writeFile(
      join(root, "manage.json"),
      JSON.stringify({ ...request, request_key: "cli-2" }),
    );
    const stale = await awr(["--json", "work", "manage", "--input", "manage.json"], { cwd: root });
    expect(stale.code).toBe(1);
    expect(stale.error().code).toBe("RevisionConflict");
    const later = await awr(["--json", "work", "assess", "W-3"], { cwd: root });
    expect(later.json()).toMatchObject({ record_required: false, observer: "builder" });
  });

  it("prepares a completion from a report file and refuses one that misses a criterion", async () => {
    const report = {
      version: 1,
      work_item: "W-3",
      source_sha: SHA,
      command: "npm test -- payments",
      scope: ["server/payments/"],
      verified_at: Date.now() - 1000,
      checks: [{ name: "payments", passed: true, details: "all green", criteria: CRITERIA }],
    };
    const text = JSON.stringify(report);
    await writeFile(join(root, "report.json"), text);
    const words = ["--json", "work", "prepare-completion", "W-3", "--report", "report.json"];
    const prepared = await awr([...words, "--evidence-key", "E-3", "--source-sha", SHA], {
      cwd: root,
    });
    expect(prepared.code, prepared.stderr).toBe(0);
    expect(prepared.json()).toMatchObject({
      stage: "report_validated",
      report_sha256: createHash("sha256").update(text).digest("hex"),
      completion: { minimum_level: "locally_verified" },
      evidence: { external_key: "E-3", locator: "report.json" },
    });
    await writeFile(
      join(root, "report.json"),
      JSON.stringify({ ...report, checks: [{ ...report.checks[0], criteria: [CRITERIA[0]] }] }),
    );
    const partial = await awr([...words, "--evidence-key", "E-3", "--source-sha", SHA], {
      cwd: root,
    });
    expect(partial.code).toBe(1);
    expect(partial.error().code).toBe("EvidenceMissing");
    const usage = await awr(["work", "prepare-completion", "W-3"], { cwd: root });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("--report");
  });

  it("refuses a record while a source does not index, as SourceStale, writing nothing", async () => {
    const start = await awr(
      ["--json", "session", "start", "--work", "W-3", "--conversation", "stale", ...AGENT],
      { cwd: root },
    );
    expect(start.code, start.stderr).toBe(0);
    const session = start.json<{ session: { id: string } }>().session.id;
    const assessed = (await awr(["--json", "work", "assess", "W-3"], { cwd: root })).json<{
      contract_fingerprint: string;
      project_revision: number;
    }>();
    const ledger = join(root, "work-ledger.yaml");
    const original = await readFile(ledger, "utf8");
    const broken = `${original}\n  - id: W-BROKEN\n    title: "unterminated\n`;
    await writeFile(ledger, broken);
    try {
      await writeFile(
        join(root, "manage.json"),
        JSON.stringify({
          work: "W-3",
          session,
          expected_revision: assessed.project_revision,
          request_key: "cli-stale",
          contract_fingerprint: assessed.contract_fingerprint,
          observation: { observed_at: Date.now() - 1000, note: "Checked while the ledger broke" },
        }),
      );
      const refused = await awr(["--json", "work", "manage", "--input", "manage.json"], {
        cwd: root,
      });
      expect(refused.code).toBe(1);
      expect(refused.error().code).toBe("SourceStale");
      expect(await readFile(ledger, "utf8")).toBe(broken);
    } finally {
      await writeFile(ledger, original);
    }
  });
});
