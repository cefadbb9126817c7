import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isLedgerError, type LedgerError } from "@awr/awr-ledger";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BACKENDS } from "./helpers/backends.js";
import { type OpenProject, openFixtureProject } from "./helpers/projects.js";

/**
 * awr_source_scan (awr source scan) and awr_doctor on a changed source that the reindex
 * refuses, both backends: the source is reported refused with the reindex's own code and
 * message (not merely "changed, run reindex"), and a source that became a symlink leaving the
 * project is never opened, by the scan, the doctor, a plain read or the reindex.
 */

const AWS_KEY = ["AKIA", "ABCDEFGHIJKLMNOP"].join("");

interface Finding {
  code: string;
  severity: string;
  object_id: string;
  message: string;
}

async function failure(run: Promise<unknown>): Promise<LedgerError> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isLedgerError(error)) throw new Error(`expected a LedgerError, got ${String(error)}`);
  return error;
}

/**
 * Whether reading a file in `dir` moves its access time on this filesystem (relatime does for a
 * file whose atime is a day old; noatime never): the atime assertions below mean something
 * only then.
 */
function readsMoveAtime(dir: string): boolean {
  const probe = join(dir, "atime-probe");
  writeFileSync(probe, "probe");
  utimesSync(probe, new Date("2000-01-01T00:00:00Z"), new Date("2000-01-01T00:00:00Z"));
  readFileSync(probe);
  return statSync(probe).atimeMs > Date.parse("2001-01-01T00:00:00Z");
}

describe.each(BACKENDS)("a changed source the reindex refuses, %s", (backend) => {
  let p: OpenProject;
  let outside: string;
  beforeEach(async () => {
    p = await openFixtureProject("basic", backend);
    outside = mkdtempSync(join(tmpdir(), "awr-outside-"));
  });
  afterEach(async () => {
    await p.close();
    rmSync(outside, { recursive: true, force: true });
  });

  const file = (name: string) => join(p.root, name);
  const reindex = async () =>
    p.ledger.call("awr_source_reindex", { expected_revision: await p.ledger.revision() });
  const doctorFindings = async () =>
    ((await p.ledger.execute("awr_doctor", {})) as { findings: Finding[] }).findings;

  /** The scan's refusal of `path` is the reindex's error for it, and the doctor's finding too. */
  async function expectRefusedAsReindexRefuses(path: string, code: string): Promise<string> {
    const scan = await p.ledger.call("awr_source_scan", {});
    expect(scan.changed_paths).toContain(path);
    const refusal = scan.refused.find((r) => r.path === path);
    expect(refusal, JSON.stringify(scan)).toBeDefined();
    const error = await failure(reindex());
    expect(error.code).toBe(code);
    expect(refusal?.code).toBe(code);
    expect(refusal?.message).toBe(error.message);
    const findings = (await doctorFindings()).filter((f) => f.object_id === path);
    expect(findings).toEqual([
      expect.objectContaining({ code: "source_access_failed", severity: "error" }),
    ]);
    expect(findings[0]?.message).toContain(error.message);
    return error.message;
  }

  it("a symlink to a file outside the project: refused as the reindex refuses it, never opened", async () => {
    const target = join(outside, "goals.md");
    writeFileSync(target, "# Outside goal {#outside}\n\nOUTSIDE CONTENT\n");
    rmSync(file("GOALS.md"));
    symlinkSync(target, file("GOALS.md"));
    const old = new Date("2000-01-01T00:00:00Z");
    utimesSync(target, old, old);
    const atimeMatters = readsMoveAtime(outside);

    const stale = await failure(p.ledger.call("awr_project_status", { view: "full" }));
    expect(stale.code).toBe("SourceStale");
    const message = await expectRefusedAsReindexRefuses("GOALS.md", "RuleViolation");
    expect(message).toContain("is a symlink whose real path");
    expect(message).toContain("leaves the allowed roots");
    expect(JSON.stringify(await p.ledger.call("awr_source_scan", {}))).not.toContain(
      "OUTSIDE CONTENT",
    );
    if (atimeMatters) expect(statSync(target).atimeMs).toBe(old.getTime());
  });

  it("a FIFO, a directory and a file over its cap: refused with the reindex's InvalidInput", async () => {
    rmSync(file("PLAN.md"));
    execFileSync("mkfifo", [file("PLAN.md")]);
    expect(await expectRefusedAsReindexRefuses("PLAN.md", "InvalidInput")).toMatch(
      /PLAN\.md is a FIFO/,
    );

    rmSync(file("PLAN.md"));
    mkdirSync(file("PLAN.md"));
    expect(await expectRefusedAsReindexRefuses("PLAN.md", "InvalidInput")).toMatch(
      /PLAN\.md is a directory/,
    );

    rmSync(file("PLAN.md"), { recursive: true });
    writeFileSync(file("PLAN.md"), `# Plan\n\n${"a".repeat(2 * 1024 * 1024)}\n`);
    expect(await expectRefusedAsReindexRefuses("PLAN.md", "InvalidInput")).toMatch(
      /over its cap of 2097152 bytes.*max_bytes/,
    );
  });

  it("a credential: refused with the reindex's RuleViolation naming file and line, never the value", async () => {
    appendFileSync(
      file("RULES.md"),
      `\n## Deploy {#deploy severity=hard}\n\nUse key ${AWS_KEY} for deploys.\n`,
    );
    const line = readFileSync(file("RULES.md"), "utf8")
      .split("\n")
      .indexOf(`Use key ${AWS_KEY} for deploys.`);
    const scan = await p.ledger.call("awr_source_scan", {});
    expect(scan.refused).toEqual([
      expect.objectContaining({ path: "RULES.md", code: "RuleViolation" }),
    ]);
    expect(scan.refused[0]?.message).toContain(
      `Cannot index RULES.md:${line + 1}: it holds a credential (aws_access_key)`,
    );
    const findings = (await doctorFindings()).filter((f) => f.object_id === "RULES.md");
    expect(findings).toEqual([
      expect.objectContaining({ code: "source_access_failed", severity: "error" }),
    ]);
    expect(JSON.stringify([scan, findings])).not.toContain(AWS_KEY.slice(4));
  });

  it("a changed source the reindex would index is reported changed, not refused", async () => {
    appendFileSync(file("GOALS.md"), "\n## Faster refunds {#refunds}\n\nRefunds within a day.\n");
    const scan = await p.ledger.call("awr_source_scan", {});
    expect(scan).toMatchObject({ fresh: false, changed_paths: ["GOALS.md"], refused: [] });
    expect(await p.ledger.changedPaths()).toEqual(["GOALS.md"]);
    await reindex();
    expect(await p.ledger.call("awr_source_scan", {})).toMatchObject({
      fresh: true,
      changed_paths: [],
      refused: [],
    });
  });
});
