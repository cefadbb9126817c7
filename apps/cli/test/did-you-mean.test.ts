import { openLedger } from "@awr/awr-ledger";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awr, demoProject, removeTemps } from "./support/cli-harness.js";

/**
 * A mistyped command or work key gets the one meant: a near miss of a command is a usage error
 * (exit 2) that says "Did you mean", with `details.suggestions` under --json; a word near no
 * command is Unsupported (exit 1) and lists the commands; an unknown work key is NotFound as
 * the tool answers it, plus the nearest keys of the project.
 */

let root: string;

beforeAll(async () => {
  root = await demoProject();
});
afterAll(removeTemps);

describe("a mistyped command", () => {
  it("suggests the top-level command meant (exit 2, InvalidInput)", async () => {
    for (const [typed, meant] of [
      ["stauts", "status"],
      ["statsu", "status"],
      ["raedy", "ready"],
      ["sesion", "session"],
    ]) {
      const human = await awr([typed as string], { cwd: root });
      expect(human.code, typed).toBe(2);
      expect(human.stderr.split("\n")[0], typed).toBe(
        `usage error: \`awr ${typed}\` is not a command. Did you mean \`awr ${meant}\`?`,
      );
      const json = await awr(["--json", typed as string], { cwd: root });
      expect(json.code, typed).toBe(2);
      expect(json.error(), typed).toEqual({
        code: "InvalidInput",
        message: `\`awr ${typed}\` is not a command. Did you mean \`awr ${meant}\`?`,
        details: { command: typed, suggestions: [`awr ${meant}`] },
      });
    }
  });

  it("suggests the subcommand meant", async () => {
    const json = await awr(["work", "shwo", "W-2", "--json"], { cwd: root });
    expect(json.code).toBe(2);
    expect(json.error()).toEqual({
      code: "InvalidInput",
      message: "`awr work shwo` is not a command. Did you mean `awr work show`?",
      details: { command: "work shwo", suggestions: ["awr work show"] },
    });
    const human = await awr(["session", "lst"], { cwd: root });
    expect(human.code).toBe(2);
    expect(human.stderr).toContain("Did you mean `awr session list`?");
  });

  it("answers a word near no command with Unsupported (exit 1), listing the commands", async () => {
    const json = await awr(["--json", "xyzzy"], { cwd: root });
    expect(json.code).toBe(1);
    const error = json.error();
    expect(error.code).toBe("Unsupported");
    expect(error.details).toEqual({ command: "xyzzy" });
    expect(error.message).toMatch(
      /^`awr xyzzy` is not a command of this awr\. Its commands: .*\bstatus, ready\b.*\. Run `awr help` for what each does\.$/,
    );
    const group = await awr(["work", "zzz"], { cwd: root });
    expect(group.code).toBe(2);
    expect(group.stderr.split("\n")[0]).toMatch(
      /^usage error: `awr work zzz` is not a command\. The commands of `awr work`: .*\bshow\b/,
    );
  });
});

describe("an unknown work key", () => {
  it("keeps the tool's NotFound and adds the nearest keys", async () => {
    const ledger = await openLedger({ root });
    let tool: { code?: string; message?: string; details?: unknown } = {};
    try {
      await ledger.call("awr_work_get", { work: "W-22" });
    } catch (error) {
      tool = error as typeof tool;
    } finally {
      await ledger.close();
    }
    expect(tool.code).toBe("NotFound");
    const json = await awr(["--json", "work", "show", "W-22"], { cwd: root });
    expect(json.code).toBe(1);
    expect(json.error()).toEqual({
      code: "NotFound",
      message: tool.message,
      details: { work: "W-22", suggestions: ["W-2"] },
    });
    const human = await awr(["work", "show", "w-2"], { cwd: root });
    expect(human.code).toBe(1);
    expect(human.stderr.split("\n").at(-2)).toBe(
      "next: Did you mean `W-2`? `awr work list` lists every work item.",
    );
    const start = await awr(
      ["session", "start", "--work", "W-7x", "--agent", "a", "--provider", "p", "--model", "m"],
      { cwd: root },
    );
    expect(start.code).toBe(1);
    expect(start.stderr).toContain("Did you mean `W-7`?");
  });

  it("suggests nothing for a key near none", async () => {
    const json = await awr(["--json", "work", "show", "ABSENT"], { cwd: root });
    expect(json.code).toBe(1);
    expect(json.error().details).toEqual({ work: "ABSENT" });
  });
});
