import { copyFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awr, demoProject, removeTemps, tempDir } from "./support/cli-harness.js";

type Finding = { code: string; object_id: string; repair: Record<string, string> | null };

let root: string;
beforeAll(async () => {
  root = await demoProject();
});
afterAll(removeTemps);

const doctor = (...args: string[]) => awr(["--json", "doctor", ...args], { cwd: root });

describe("awr doctor", () => {
  it("passes on a freshly initialised project, in JSON and for a person", async () => {
    const json = await doctor();
    expect(json.stderr).toBe("");
    expect(json.code).toBe(0);
    expect(json.json()).toMatchObject({
      ok: true,
      database_ok: true,
      findings: [],
      sources_checked: 5,
    });
    const human = await awr(["doctor"], { cwd: root });
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("Doctor (read only)");
    expect(human.stdout).toContain("No repair was applied.");
    const only = await doctor("--database-only");
    expect(only.code).toBe(0);
    expect(only.json()).not.toHaveProperty("findings");
  });

  it("prints the report, then fails with Storage, when a claim has lapsed; the repair expires it", async () => {
    const started = await awr(
      [
        "--json",
        "session",
        "start",
        "--work",
        "W-3",
        "--agent",
        "sam",
        "--provider",
        "p",
        "--model",
        "m",
        "--claim",
        "--ttl-ms",
        "1",
      ],
      { cwd: root },
    );
    expect(started.code).toBe(0);
    const claim = (started.json()["claim"] as { id: string }).id;
    const failed = await doctor();
    expect(failed.code).toBe(1);
    expect(failed.error()).toEqual({
      code: "Storage",
      message: "doctor found unresolved problems; inspect findings (no repairs applied)",
    });
    const findings = failed.json()["findings"] as Finding[];
    expect(findings.find((f) => f.code === "expired_claim")).toMatchObject({
      object_id: claim,
      repair: { kind: "expire_claim", claim_id: claim },
    });
    const human = await awr(["doctor"], { cwd: root });
    expect(human.stdout).toContain(
      `repair candidate: awr doctor repair expire-claim ${claim} --reason …`,
    );
    expect(human.stderr).toContain("error [Storage]");

    const repaired = await awr(
      ["--json", "doctor", "repair", "expire-claim", claim, "--reason", "Sam's host is gone"],
      { cwd: root },
    );
    expect(repaired.stderr).toBe("");
    expect(repaired.json()).toMatchObject({
      ok: true,
      repair_applied: true,
      receipt: {
        action: { kind: "expire_claim", claim_id: claim },
        event: { event_type: "claim.expired" },
      },
      next_action: "Run doctor to inspect remaining findings.",
    });
    const again = await awr(["doctor", "repair", "expire-claim", claim, "--reason", "again"], {
      cwd: root,
    });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`claim ${claim} is not an expired active claim`);
    expect(again.stderr).toContain("the claim is already expired");
    expect((await doctor()).code).toBe(0);
  });

  it("journals a repair under --request-id and replays it", async () => {
    const started = await awr(
      [
        "--json",
        "session",
        "start",
        "--work",
        "W-4",
        "--agent",
        "lee",
        "--provider",
        "p",
        "--model",
        "m",
      ],
      { cwd: root },
    );
    const session = (started.json()["session"] as { id: string }).id;
    const words = [
      "--json",
      "doctor",
      "repair",
      "interrupt-session",
      session,
      "--reason",
      "gone",
      "--request-id",
      "dr-1",
    ];
    const first = await awr(words, { cwd: root });
    expect(first.stderr).toBe("");
    const second = await awr(words, { cwd: root });
    expect(second.json()).toMatchObject({ replayed: true, receipt: first.json()["receipt"] });
    const op = await awr(["--json", "operation", "get", "dr-1"], { cwd: root });
    expect(op.json()).toMatchObject({ tool: "awr_doctor_repair", status: "finished" });
  });

  it("refuses an inspection flag together with a repair, and a blank reason", async () => {
    const combined = await awr(
      ["--json", "doctor", "--database-only", "repair", "expire-claim", "C-1", "--reason", "x"],
      { cwd: root },
    );
    expect(combined.code).toBe(1);
    expect(combined.error()).toMatchObject({
      code: "InvalidInput",
      message: "--database-only cannot be combined with a repair",
    });
    const blank = await awr(
      ["--json", "doctor", "repair", "expire-claim", "C-1", "--reason", " "],
      {
        cwd: root,
      },
    );
    expect(blank.error()).toMatchObject({
      code: "InvalidInput",
      message: "reconciliation reason must not be empty",
    });
    const missing = await awr(["doctor", "repair", "expire-claim", "C-1"], { cwd: root });
    expect(missing.code).toBe(2);
  });

  it("inspects another ledger file named relative to the working directory", async () => {
    const dir = await tempDir();
    await copyFile(join(root, ".awr", "state.db"), join(dir, "copy.db"));
    const result = await awr(["--json", "--project", root, "doctor", "--database", "copy.db"], {
      cwd: dir,
    });
    expect(result.stderr).toBe("");
    expect(result.json()).toMatchObject({ ok: true, project_revision: expect.any(Number) });
    const absent = await awr(["--json", "--project", root, "doctor", "--database", "absent.db"], {
      cwd: dir,
    });
    expect(absent.error()).toMatchObject({ code: "NotFound" });
    expect(absent.error().message).toContain(join(dir, "absent.db"));
  });

  it("is refused in remote mode: it works on the project's own ledger", async () => {
    const remote = await awr(["--url", "http://127.0.0.1:9/mcp", "doctor"], { cwd: root });
    expect(remote.code).toBe(2);
    expect(remote.stderr).toContain("drop --url");
  });
});
