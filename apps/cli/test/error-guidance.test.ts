import { readdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { openLedger } from "@awr/awr-ledger";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awr, demoProject, removeTemps, tempDir } from "./support/cli-harness.js";

/**
 * What a failing `awr` tells a person: the real command word, an uninitialised project that is
 * left as it was, a `next:` line that fits the error (or none), and a broken input file named by
 * line and column without a character of its content.
 */

let root: string;

beforeAll(async () => {
  root = await demoProject();
});
afterAll(removeTemps);

/** The `next:` line of a human error, or undefined when there is none. */
function nextLine(stderr: string): string | undefined {
  return stderr.split("\n").find((line) => line.startsWith("next: "));
}

describe("a project whose ledger does not exist yet (a fresh clone)", () => {
  /** The demo project with `.awr/project.toml` only, as a clone of a project that ignores state.db. */
  async function freshClone(): Promise<string> {
    const clone = await demoProject();
    for (const name of await readdir(join(clone, ".awr"))) {
      if (name !== "project.toml") await rm(join(clone, ".awr", name));
    }
    return clone;
  }

  const READS = [
    ["status"],
    ["ready"],
    ["work", "list"],
    ["work", "show", "W-1"],
    ["search", "orders"],
    ["context", "bootstrap"],
    ["context", "compile", "--work", "W-1"],
    ["source", "list"],
    ["source", "scan"],
    ["session", "list"],
    ["session", "show", "--conversation", "desk"],
    ["event", "history"],
    ["operation", "get", "req-1"],
    ["doctor"],
  ];

  it("answers every read with NotInitialised and `awr init --accept`, creating nothing", async () => {
    const clone = await freshClone();
    for (const words of READS) {
      const human = await awr(words, { cwd: clone });
      expect(human.code, words.join(" ")).toBe(1);
      expect(human.stdout, words.join(" ")).toBe("");
      const lines = human.stderr.split("\n");
      expect(lines[0], words.join(" ")).toBe(
        `error [NotInitialised]: ${clone} is not an initialised AWR project: it has .awr/project.toml but no ledger database (.awr/state.db), as in a fresh clone. Run \`awr init --accept\` there; nothing was created.`,
      );
      expect(nextLine(human.stderr), words.join(" ")).toBe(
        `next: Run \`awr init --accept\` in ${clone} to create its ledger (without --accept it previews, writing nothing).`,
      );
      const json = await awr(["--json", ...words], { cwd: clone });
      expect(json.code, words.join(" ")).toBe(1);
      expect(json.error(), words.join(" ")).toMatchObject({
        code: "NotInitialised",
        details: { root: clone },
      });
      expect(await readdir(join(clone, ".awr")), words.join(" ")).toEqual(["project.toml"]);
    }
  });

  it("refuses a write the same way, and initialises on `awr init --accept`", async () => {
    const clone = await freshClone();
    const write = await awr(
      ["session", "start", "--work", "W-2", "--agent", "a", "--provider", "p", "--model", "m"],
      { cwd: clone },
    );
    expect(write.code).toBe(1);
    expect(write.stderr).toMatch(/^error \[NotInitialised\]: /);
    expect(await readdir(join(clone, ".awr"))).toEqual(["project.toml"]);
    expect((await awr(["init", "--accept"], { cwd: clone })).code).toBe(0);
    expect((await awr(["status"], { cwd: clone })).code).toBe(0);
  });

  it("still names the fix for a directory without any project", async () => {
    const empty = await tempDir();
    const result = await awr(["status"], { cwd: empty });
    expect(result.code).toBe(1);
    expect(nextLine(result.stderr)).toBe(
      "next: Run `awr init --accept` in the project's root (without --accept it previews, writing nothing), or pass --project DIR.",
    );
    expect(await readdir(empty)).toEqual([]);
  });
});

describe("an unknown command after global options", () => {
  it("names the command word, not the value of the option before it", async () => {
    for (const words of [
      ["--project", ".", "capabilities"],
      ["--project=.", "capabilities"],
      ["--json", "--project", ".", "capabilities"],
      ["--token-env", "X", "xyzzy", "show"],
      ["--url", "http://127.0.0.1:9/mcp", "--project-key", "k", "xyzzy", "show"],
    ]) {
      const result = await awr(["--json", ...words], { cwd: root });
      const command = words.includes("xyzzy") ? "xyzzy" : "capabilities";
      expect(result.code, words.join(" ")).toBe(1);
      expect(result.error(), words.join(" ")).toMatchObject({
        code: "Unsupported",
        details: { command },
      });
      expect(result.error().message, words.join(" ")).toMatch(
        new RegExp(`^\`awr ${command}\` is not a command of this awr\\. Its commands: `),
      );
    }
  });
});

describe("the next: line fits the error", () => {
  it("tells another client's session apart from the caller's own", async () => {
    const ledger = await openLedger({ root });
    let session: string;
    try {
      const started = await ledger.call(
        "awr_session_start",
        {
          work: "W-3",
          agent: "b",
          provider: "p",
          model: "m",
          conversation: "theirs",
          expected_revision: await ledger.revision(),
        },
        { client: "someone-else" },
      );
      session = (started as unknown as { session: { id: string } }).session.id;
    } finally {
      await ledger.close();
    }
    const result = await awr(["session", "show", session], { cwd: root });
    expect(result.code).toBe(1);
    // Another client's session id never surfaces, not even the one the caller named.
    expect(result.stderr).toMatch(
      /^error \[RuleViolation\]: session \[another client's session\] belongs to another client/,
    );
    expect(result.stderr).not.toContain(session);
    expect(nextLine(result.stderr)).toBe(
      "next: Use your own sessions, waits and claims (`awr session list` lists your sessions).",
    );
  });

  it("says how to fix a source path that leaves the project, not whose session to use", async () => {
    const project = await demoProject();
    const manifest = join(project, ".awr", "project.toml");
    const { readFile } = await import("node:fs/promises");
    const text = await readFile(manifest, "utf8");
    await writeFile(manifest, text.replace('path = "GOALS.md"', 'path = "../GOALS.md"'));
    const dotdot = await awr(["status"], { cwd: project });
    expect(dotdot.code).toBe(1);
    expect(dotdot.stderr).toMatch(/^error \[RuleViolation\]: Source path "..\/GOALS.md" escapes/);
    expect(nextLine(dotdot.stderr)).toBe(
      `next: Point the source at a file inside ${project} (a symbolic link must resolve there too), or add its directory to [project] authorized_roots in .awr/project.toml.`,
    );

    await writeFile(manifest, text);
    const outside = join(await tempDir(), "goals.md");
    await writeFile(outside, "# Goals\n");
    await rm(join(project, "GOALS.md"));
    await symlink(outside, join(project, "GOALS.md"));
    const link = await awr(["status"], { cwd: project });
    expect(link.code).toBe(1);
    expect(link.stderr).toMatch(/^error \[RuleViolation\]: Source path "GOALS.md" is a symlink/);
    expect(nextLine(link.stderr)).toMatch(/^next: Point the source at a file inside /);
  });

  it("says to remove a credential from a source, from the manifest and from the arguments", async () => {
    const project = await demoProject();
    const key = ["AKIA", "ABCDEFGHIJKLMNOP"].join("");
    const { appendFile, readFile } = await import("node:fs/promises");
    await appendFile(join(project, "DECISIONS.md"), `\nThe deploy key is ${key}.\n`);
    const source = await awr(["status"], { cwd: project });
    expect(source.code).toBe(1);
    expect(source.stderr).toMatch(/^error \[RuleViolation\]: Cannot index DECISIONS.md:\d+/);
    expect(nextLine(source.stderr)).toMatch(
      /^next: Remove the credential from DECISIONS\.md:\d+ \(keep only a reference, .*\); the next read or `awr source reindex` indexes the file again\.$/,
    );
    expect(source.stderr).not.toContain(key);

    const argument = await awr(["event", "append", "--type", "note", "--summary", `key ${key}`], {
      cwd: root,
    });
    expect(argument.code).toBe(1);
    expect(argument.stderr).toMatch(/^error \[RuleViolation\]: /);
    expect(nextLine(argument.stderr)).toMatch(
      /^next: Remove the credential from the `awr event append` input .* and pass a reference instead/,
    );
    expect(argument.stderr).not.toContain(key);

    const manifestProject = await demoProject();
    const manifest = join(manifestProject, ".awr", "project.toml");
    const text = await readFile(manifest, "utf8");
    await writeFile(manifest, `${text}\n# database postgres://admin:${key}@db.example/awr\n`);
    const inManifest = await awr(["status"], { cwd: manifestProject });
    expect(inManifest.code).toBe(1);
    expect(inManifest.stderr).toMatch(/^error \[RuleViolation\]: The manifest .awr\/project.toml/);
    expect(nextLine(inManifest.stderr)).toMatch(
      /^next: Remove the credential from \.awr\/project\.toml at line \d+; name the environment variable that holds it instead/,
    );
    expect(inManifest.stderr).not.toContain(key);
  });

  it("points a missing --manifest at the path, and keeps `Check the id` for an unknown id", async () => {
    const project = await demoProject({ init: false });
    const missing = await awr(["init", "--manifest", "nope.toml", "--accept"], { cwd: project });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(
      /^error \[NotFound\]: Manifest file \S+nope\.toml does not exist/,
    );
    expect(nextLine(missing.stderr)).toBe(
      "next: Check the --manifest path: it is taken relative to the project root (--project DIR, or the current directory), or give it as an absolute path.",
    );
    // A key near no work key of the project (a near one gets "Did you mean" instead).
    const unknown = await awr(["work", "show", "ABSENT"], { cwd: root });
    expect(unknown.code).toBe(1);
    expect(nextLine(unknown.stderr)).toBe(
      "next: Check the id (awr ready, awr search TEXT, awr session list).",
    );
  });
});

describe("an input file that is not JSON", () => {
  it("names the file, the line and the column, never its content", async () => {
    const key = ["AKIA", "ABCDEFGHIJKLMNOP"].join("");
    const cases: { text: string; line: number; column: number; problem: string }[] = [
      {
        text: `${key}\n`,
        line: 1,
        column: 1,
        problem:
          "an unexpected character or word (a JSON value is a string in double quotes, a number, true, false, null, an object or an array)",
      },
      {
        text: `{"note": "ok",\n "key": ${key}}`,
        line: 2,
        column: 9,
        problem:
          "an unexpected character or word (a JSON value is a string in double quotes, a number, true, false, null, an object or an array)",
      },
      {
        text: `{"key": "${key}`,
        line: 1,
        column: 9,
        problem: 'a string that is not closed (a closing " is missing)',
      },
      {
        text: `{"key": "${key}",}`,
        line: 1,
        column: 32,
        problem:
          "a property name in double quotes is expected here (a trailing comma before } is not allowed)",
      },
    ];
    for (const [index, { text, line, column, problem }] of cases.entries()) {
      const name = `broken-${index}.json`;
      await writeFile(join(root, name), text);
      const payload = await awr(
        ["event", "append", "--type", "note", "--summary", "s", "--payload", name],
        { cwd: root },
      );
      expect(payload.code, name).toBe(1);
      expect(payload.stderr, name).toBe(
        `error [InvalidInput]: ${name} is not valid JSON at line ${line}, column ${column}: ${problem}. The file's content is not shown, as it may hold a secret.\n` +
          `  path: ${join(root, name)}\n` +
          `  line: ${line}\n` +
          `  column: ${column}\n` +
          `next: Fix the JSON in ${name} at line ${line}, column ${column}, then run the command again.\n`,
      );
      const input = await awr(["--json", "evidence", "add", "--input", name], { cwd: root });
      expect(input.code, name).toBe(1);
      expect(input.error(), name).toEqual({
        code: "InvalidInput",
        message: `${name} is not valid JSON at line ${line}, column ${column}: ${problem}. The file's content is not shown, as it may hold a secret.`,
        details: { path: join(root, name), line, column },
      });
      for (const output of [payload.stderr, input.stderr]) {
        expect(output).not.toContain("AKIA");
        expect(output).not.toContain('"note"');
      }
    }
  });
});
