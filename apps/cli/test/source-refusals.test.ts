import {
  appendFile,
  chmod,
  readFile,
  rename,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { awr, demoProject, removeTemps, tempDir } from "./support/cli-harness.js";

/**
 * What a person sees when a planning source is one AWR cannot index or write: `source scan` and
 * `doctor` name a refused source with the reindex's reason (never "changed, run reindex" for a
 * file the reindex refuses), `source reindex` fails while a source is held back, `status` and
 * `ready` say a missing source is missing, and a transition refuses a read-only ledger.
 */

afterAll(removeTemps);

const AWS_KEY = ["AKIA", "ABCDEFGHIJKLMNOP"].join("");
const AGENT = ["--agent", "builder", "--provider", "example-provider", "--model", "example-model"];

describe("refused and missing sources through the CLI", () => {
  it("scan and doctor name a symlink leaving the project as refused, with the reindex's reason", async () => {
    const root = await demoProject();
    const outside = await tempDir("awr-cli-outside-");
    const target = join(outside, "goals.md");
    await writeFile(target, "# Outside {#outside}\n\nOUTSIDE CONTENT\n");
    await rm(join(root, "GOALS.md"));
    await symlink(target, join(root, "GOALS.md"));

    const scan = await awr(["--json", "source", "scan"], { cwd: root });
    expect(scan.code).toBe(0);
    const result = scan.json<{ fresh: boolean; refused: { path: string; code: string }[] }>();
    expect(result.fresh).toBe(false);
    expect(result.refused).toEqual([
      expect.objectContaining({
        path: "GOALS.md",
        code: "RuleViolation",
        message: expect.stringContaining("is a symlink whose real path"),
      }),
    ]);
    const human = await awr(["source", "scan"], { cwd: root });
    expect(human.stdout).toContain("1 source(s) changed but cannot be indexed");
    expect(human.stdout).toMatch(
      /GOALS\.md {2}\[RuleViolation\] Source path "GOALS\.md" is a symlink/,
    );
    expect(human.stdout).not.toContain("Run `awr source reindex`");

    const reindex = await awr(["--json", "source", "reindex"], { cwd: root });
    expect(reindex.code).toBe(1);
    expect(reindex.error().message).toBe(
      (result.refused[0] as unknown as { message: string }).message,
    );
    const doctor = await awr(["--json", "doctor"], { cwd: root });
    expect(doctor.code).toBe(1);
    const findings = doctor.json<{
      findings: { code: string; object_id: string; message: string }[];
    }>().findings;
    expect(findings).toContainEqual(
      expect.objectContaining({
        code: "source_access_failed",
        object_id: "GOALS.md",
        message: expect.stringContaining("is a symlink whose real path"),
      }),
    );
    const printed = [scan.stdout, human.stdout, reindex.stdout, reindex.stderr, doctor.stdout];
    expect(printed.join("\n")).not.toContain("OUTSIDE CONTENT");
  });

  it("source reindex fails with RuleViolation while a source holding a credential is held back", async () => {
    const root = await demoProject();
    await appendFile(
      join(root, "RULES.md"),
      `\n## Deploy {#deploy severity=hard}\n\nUse key ${AWS_KEY} for deploys.\n`,
    );
    const line =
      (await readFile(join(root, "RULES.md"), "utf8"))
        .split("\n")
        .indexOf(`Use key ${AWS_KEY} for deploys.`) + 1;
    const json = await awr(["--json", "source", "reindex"], { cwd: root });
    expect(json.code).toBe(1);
    expect(json.error()).toMatchObject({
      code: "RuleViolation",
      message: expect.stringContaining(`Cannot index RULES.md:${line}: it holds a credential`),
    });
    const result = json.json<{ ok: boolean; sources: { path: string; state: string }[] }>();
    expect(result.ok).toBe(false);
    expect(result.sources.find((s) => s.path === "RULES.md")?.state).toBe("held_back");
    const human = await awr(["source", "reindex"], { cwd: root });
    expect(human.code).toBe(1);
    expect(human.stderr).toContain("error [RuleViolation]: Cannot index RULES.md");
    expect(human.stdout).not.toContain("✓");
    const scan = await awr(["--json", "source", "scan"], { cwd: root });
    expect(scan.json()["refused"]).toEqual([
      expect.objectContaining({ path: "RULES.md", code: "RuleViolation" }),
    ]);
    const printed = [json.stdout, json.stderr, human.stdout, human.stderr, scan.stdout].join("\n");
    expect(printed).not.toContain(AWS_KEY.slice(4));
  });

  it("status and ready say the work ledger is missing instead of that all work is done", async () => {
    const root = await demoProject();
    const ledger = join(root, "work-ledger.yaml");
    await rename(ledger, `${ledger}.away`);
    const status = await awr(["status"], { cwd: root });
    expect(status.code).toBe(0);
    expect(status.stdout).not.toContain("No open work remains");
    expect(status.stdout).toContain("source issues (1)");
    expect(status.stdout).toContain(
      "warning work-ledger.yaml: source file work-ledger.yaml does not exist",
    );
    const ready = await awr(["--json", "ready"], { cwd: root });
    expect(ready.json()).toMatchObject({
      source_warnings: 1,
      source_issues: [expect.objectContaining({ path: "work-ledger.yaml", severity: "warning" })],
    });
    await rename(`${ledger}.away`, ledger);
    const back = await awr(["--json", "status"], { cwd: root });
    expect(back.json()).toMatchObject({ source_issues: [], source_warnings: 0 });
    expect(back.json()["total"]).toBeGreaterThan(0);
  });

  it("a transition refuses a work ledger made read-only and leaves it as it was", async () => {
    const root = await demoProject();
    const start = await awr(
      ["session", "start", "--work", "W-3", "--conversation", "desk", ...AGENT, "--claim"],
      { cwd: root },
    );
    expect(start.code).toBe(0);
    const ledger = join(root, "work-ledger.yaml");
    await chmod(ledger, 0o444);
    const bytes = await readFile(ledger);
    const progress = await awr(
      ["work", "progress", "W-3", "--conversation", "desk", "--reason", "starting"],
      { cwd: root },
    );
    expect(progress.code).toBe(1);
    expect(progress.stderr).toContain(
      "error [RuleViolation]: work-ledger.yaml is read-only (mode 0444)",
    );
    expect(progress.stderr).toContain("chmod u+w work-ledger.yaml");
    expect(await readFile(ledger)).toEqual(bytes);
    expect((await stat(ledger)).mode & 0o777).toBe(0o444);
    const show = await awr(["--json", "work", "show", "W-3"], { cwd: root });
    expect((show.json()["work"] as { status: string }).status).toBe("ready");
  });
});
