import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awr, demoProject, removeTemps, tempDir } from "./support/cli-harness.js";

let root: string;

beforeAll(async () => {
  root = await demoProject();
});
afterAll(removeTemps);

describe("usage errors exit 2 with a next: line", () => {
  it("reports every missing required flag at once", async () => {
    const result = await awr(["work", "progress", "W-2"], { cwd: root });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      "usage error: `awr work progress` is missing --reason, --session or --conversation. Run `awr work progress --help` for what each means.\n" +
        "next: run `awr help`, or add --help to the command, for its words and flags\n",
    );
    const none = await awr(["session", "wait"], { cwd: root });
    expect(none.stderr.split("\n")[0]).toBe(
      "usage error: `awr session wait` is missing --question, --context-hash, --digest, --next-action, --session or --conversation. Run `awr session wait --help` for what each means.",
    );
  });

  it("reports usage errors as InvalidInput on stderr under --json, with stdout empty", async () => {
    const result = await awr(["work", "show", "--json"], { cwd: root });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.error()).toEqual({
      code: "InvalidInput",
      message: "`awr work show` is missing WORK. Run `awr work show --help` for what each means.",
    });
  });

  it("refuses a flag value of the wrong shape and an unknown flag", async () => {
    const shape = await awr(["ready", "--limit", "many", "--json"], { cwd: root });
    expect(shape.code).toBe(2);
    expect(shape.error().code).toBe("InvalidInput");
    expect(shape.error().message).toContain('"many" is not a whole number');
    const unknown = await awr(["status", "--colour", "--json"], { cwd: root });
    expect(unknown.code).toBe(2);
    expect(unknown.error().message).toContain("--colour");
  });

  it("asks for a subcommand when a group is called alone", async () => {
    const result = await awr(["session"], { cwd: root });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("checkpoint");
  });

  it("keeps operator commands local", async () => {
    const result = await awr(["--url", "http://127.0.0.1:9/mcp", "init", "--json"], { cwd: root });
    expect(result.code).toBe(2);
    expect(result.error().message).toContain("drop --url");
  });
});

describe("domain errors exit 1, with hints that name CLI commands", () => {
  it("answers a top-level command awr does not have with Unsupported", async () => {
    const result = await awr(["frobnicate", "--json"], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.error()).toMatchObject({
      code: "Unsupported",
      details: { command: "frobnicate" },
    });
    expect(result.error().message).toMatch(/^`awr frobnicate` is not a command of this awr\. /);
  });

  it("answers an out-of-range value as the tool does (InvalidInput, exit 1), in flags", async () => {
    const result = await awr(["ready", "--limit", "0"], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "error [InvalidInput]: Invalid value for `awr ready`: --limit must be from 1 to 100.\n" +
        "next: Run `awr ready --help` for what each flag takes.\n",
    );
    const search = await awr(["search", "cart", "--limit", "101"], { cwd: root });
    expect(search.stderr.split("\n")[0]).toBe(
      "error [InvalidInput]: Invalid value for `awr search`: --limit must be from 1 to 100.",
    );
    // The JSON form stays the tool's word for word (the parity test compares the two).
    const json = await awr(["ready", "--limit", "0", "--json"], { cwd: root });
    expect(json.error()).toMatchObject({
      code: "InvalidInput",
      details: { issues: [{ path: "limit", message: "must be from 1 to 100" }] },
    });
  });

  it("asks `awr search` for text or a filter in flags, not in tool arguments", async () => {
    const result = await awr(["search"], { cwd: root });
    expect(result.code).toBe(2);
    expect(result.stderr.split("\n")[0]).toBe(
      "usage error: `awr search` needs TEXT, --type, --status or --work. Run `awr search --help` for what each means.",
    );
    const limitOnly = await awr(["search", "--limit", "3", "--json"], { cwd: root });
    expect(limitOnly.code).toBe(2);
    expect(limitOnly.error()).toEqual({
      code: "InvalidInput",
      message:
        "`awr search` needs TEXT, --type, --status or --work. Run `awr search --help` for what each means.",
    });
    for (const words of [
      ["search", "cart"],
      ["search", "--type", "work"],
      ["search", "--work", "W-2"],
    ]) {
      expect((await awr(words, { cwd: root })).code, words.join(" ")).toBe(0);
    }
  });

  it("says the caller holds no claim when nobody does, and who holds it when someone does", async () => {
    const mine = await awr(
      [
        "session",
        "start",
        "--work",
        "W-3",
        "--conversation",
        "me-1",
        "--agent",
        "a",
        "--provider",
        "p",
        "--model",
        "m",
        "--json",
      ],
      { cwd: root },
    );
    const session = (mine.json()["session"] as { id: string }).id;
    const unclaimed = await awr(
      ["work", "progress", "W-3", "--conversation", "me-1", "--reason", "go"],
      { cwd: root },
    );
    expect(unclaimed.code).toBe(1);
    expect(unclaimed.stderr.split("\n").at(-2)).toBe(
      `next: Your session holds no claim on W-3: claim it first with \`awr session claim --session ${session}\`.`,
    );
    expect(unclaimed.stderr).not.toMatch(/awr_[a-z]/);
    const holder = await awr(
      [
        "session",
        "start",
        "--work",
        "W-3",
        "--conversation",
        "them",
        "--agent",
        "b",
        "--provider",
        "p",
        "--model",
        "m",
        "--claim",
        "--json",
      ],
      { cwd: root },
    );
    const holderSession = (holder.json()["session"] as { id: string }).id;
    const taken = await awr(
      ["work", "progress", "W-3", "--conversation", "me-1", "--reason", "go"],
      { cwd: root },
    );
    expect(taken.stderr.split("\n").at(-2)).toBe(
      `next: Session ${holderSession} holds the claim on W-3: wait for it to be released or to expire, or pick other work (awr ready).`,
    );
  });

  it("names CLI commands, never tool names, in the error text", async () => {
    const result = await awr(
      ["work", "progress", "W-3", "--conversation", "nobody", "--reason", "go"],
      { cwd: root },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'error [NotFound]: no session is bound to conversation "nobody" for this client; start one with `awr session start`\n' +
        "  conversation: nobody\n" +
        "next: Check the id (awr ready, awr search TEXT, awr session list).\n",
    );
  });

  it("names an unknown work item with its code under --json", async () => {
    const result = await awr(["--json", "work", "show", "W-404"], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.error()).toMatchObject({ code: "NotFound", message: expect.any(String) });
  });

  it("refuses a payload file that is not JSON as InvalidInput, changing nothing", async () => {
    await writeFile(join(root, "bad.json"), "{");
    const result = await awr(
      ["event", "append", "--type", "note", "--summary", "s", "--payload", "bad.json", "--json"],
      { cwd: root },
    );
    expect(result.code).toBe(1);
    expect(result.error().code).toBe("InvalidInput");
    expect(result.error().message).toContain("bad.json is not valid JSON");
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

  it("refuses a stale expected revision before reading any input file, changing nothing", async () => {
    const before = (await awr(["status", "--json"], { cwd: root })).json()[
      "project_revision"
    ] as number;
    const result = await awr(
      [
        "evidence",
        "add",
        "--input",
        "absent.json",
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
      "branch",
      "workstream",
      "registry",
      "token",
    ]) {
      expect(result.stdout).toContain(word);
    }
    expect(result.stdout).toContain("Exit codes");
  });

  it("shows help for a nested command with its flags and the global options", async () => {
    const result = await awr(["session", "start", "--help"]);
    expect(result.code).toBe(0);
    for (const flag of [
      "--work",
      "--conversation",
      "--claim",
      "--ttl-ms",
      "--expected-revision",
      "--json",
    ]) {
      expect(result.stdout).toContain(flag);
    }
  });

  it("prints the version with -V and --version", async () => {
    for (const flag of ["-V", "--version"]) {
      const result = await awr([flag]);
      expect(result.code).toBe(0);
      expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    }
  });
});

describe("context compile --branch", () => {
  it("compiles on a branch given by id, and refuses a name with the command that takes names", async () => {
    const project = await demoProject();
    const created = await awr(
      ["--json", "branch", "create", "spike", "--actor", "lee", "--reason", "try it"],
      { cwd: project },
    );
    expect(created.code, created.stderr).toBe(0);
    const id = (JSON.parse(created.stdout) as { branch: { id: string } }).branch.id;
    const byId = await awr(["--json", "context", "compile", "--work", "W-1", "--branch", id], {
      cwd: project,
    });
    const packet = JSON.parse(byId.stdout) as { completeness: Record<string, unknown> };
    expect(packet.completeness["branch_id"]).toBe(id);
    expect(packet.completeness).not.toHaveProperty("branch_context");
    const byName = await awr(
      ["--json", "context", "compile", "--work", "W-1", "--branch", "spike"],
      {
        cwd: project,
      },
    );
    expect(byName.code).toBe(1);
    expect(byName.error()).toMatchObject({
      code: "InvalidInput",
      message: expect.stringContaining("awr branch context spike"),
    });
  });
});
