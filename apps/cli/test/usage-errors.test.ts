import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awr, demoProject, removeTemps, tempDir } from "./support/cli-harness.js";

let root: string;

beforeAll(async () => {
  root = await demoProject();
});
afterAll(removeTemps);

describe("usage errors exit 2", () => {
  it("rejects an unknown command and points to help", async () => {
    const result = await awr(["statsu"], { cwd: root });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("status");
    expect(result.stderr).toContain("--help");
  });

  it("reports usage errors as {code, message} on stderr under --json, with stdout empty", async () => {
    const result = await awr(["work", "show", "--json"], { cwd: root });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.error()).toMatchObject({
      code: "UsageError",
      message: expect.stringContaining("work"),
    });
  });

  it("refuses a limit out of range before touching the ledger", async () => {
    const result = await awr(["ready", "--limit", "0", "--json"], { cwd: root });
    expect(result.code).toBe(2);
    expect(result.error().message).toContain("1..100");
  });

  it("asks for a subcommand when a group is called alone", async () => {
    const result = await awr(["session"], { cwd: root });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("checkpoint");
  });

  it("refuses a payload that is not a JSON object", async () => {
    const result = await awr(["event", "append", "note.added", "--payload", "[1,2]"], {
      cwd: root,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("JSON object");
  });

  it("refuses a reply with neither an answer nor --cancel", async () => {
    const result = await awr(["session", "reply", "S-1", "--json"], { cwd: root });
    expect(result.code).toBe(2);
    expect(result.error().message).toContain("--answer");
  });

  it("refuses a completion entry without evidence", async () => {
    const result = await awr(["work", "complete", "W-2", "--criterion", "schema"], { cwd: root });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("CRITERION=EVIDENCE");
  });

  it("keeps operator commands local", async () => {
    const result = await awr(["--url", "http://127.0.0.1:9/mcp", "init", "--json"], { cwd: root });
    expect(result.code).toBe(2);
    expect(result.error().message).toContain("drop --url");
  });
});

describe("help and version exit 0", () => {
  it("lists every command group with the global options and exit codes", async () => {
    const result = await awr(["--help"]);
    expect(result.code).toBe(0);
    for (const word of [
      "init",
      "status",
      "ready",
      "work",
      "context",
      "event",
      "evidence",
      "search",
      "session",
      "operation",
      "source",
      "workstream",
      "registry",
      "token",
    ]) {
      expect(result.stdout).toContain(word);
    }
    expect(result.stdout).toContain("Exit codes");
  });

  it("shows help for a nested command with the global options", async () => {
    const result = await awr(["session", "start", "--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("--conversation");
    expect(result.stdout).toContain("--expected-revision");
    expect(result.stdout).toContain("--json");
  });

  it("prints the version", async () => {
    const result = await awr(["--version"]);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe("domain errors exit 1", () => {
  it("names an unknown work item with its code under --json", async () => {
    const result = await awr(["--json", "work", "show", "W-404"], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.error()).toMatchObject({ code: "NotFound", message: expect.any(String) });
  });

  it("says how to fix a directory that is not a project", async () => {
    const empty = await tempDir();
    const result = await awr(["status"], { cwd: empty });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("NotInitialised");
    expect(result.stderr).toContain("awr init --accept");
    const json = await awr(["status", "--json"], { cwd: empty });
    expect(json.error().code).toBe("NotInitialised");
  });

  it("refuses a stale expected revision and changes nothing", async () => {
    const before = (await awr(["status", "--json"], { cwd: root })).json()[
      "project_revision"
    ] as number;
    const result = await awr(
      [
        "event",
        "append",
        "note.added",
        "--summary",
        "late",
        "--expected-revision",
        String(before + 50),
        "--json",
      ],
      { cwd: root },
    );
    expect(result.code).toBe(1);
    expect(result.error()).toMatchObject({
      code: "RevisionConflict",
      details: { expected: before + 50, actual: before },
    });
    const after = (await awr(["status", "--json"], { cwd: root })).json()["project_revision"];
    expect(after).toBe(before);
  });
});
