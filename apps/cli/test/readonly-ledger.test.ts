import { spawnSync } from "node:child_process";
import { chmod, chown, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readablePrograms } from "../../../scripts/test/readable-programs.mjs";
import { testProgram } from "../../../scripts/test/test-programs.mjs";
import { demoProject, removeTemps } from "./support/cli-harness.js";

/**
 * A ledger this user may not write. SQLite writes a WAL database's -wal and -shm files beside it
 * even to read, so a read-only `.awr/` fails every command; the failure must be Storage naming
 * the directory and the fix, never Internal ("attempt to write a readonly database"). The CLI
 * runs as its own process (a bundle of its sources) as an unprivileged user: root ignores file
 * permissions, so under root the process drops to `nobody` (uid/gid 65534). nobody may not be able
 * to enter the clone (a private temporary or home directory), so it runs its own readable copy of
 * the program (readable-programs.ts), never the clone's files.
 */

const NOBODY = 65534;

/**
 * Who the CLI runs as: this user when it is not root (its permissions apply), nobody when root
 * can start a child as nobody, and why it cannot run when neither holds.
 */
function unprivilegedUid(): { uid?: number; cannotRun?: string } {
  if (process.getuid === undefined)
    return { cannotRun: "no POSIX file permissions on this platform" };
  if (process.getuid() !== 0) return {};
  const probe = spawnSync(process.execPath, ["-e", ""], { uid: NOBODY, gid: NOBODY });
  return probe.error === undefined && probe.status === 0
    ? { uid: NOBODY }
    : {
        cannotRun: `running as root, which ignores file permissions, and a child cannot drop to uid ${NOBODY} here (${probe.error?.message ?? `exit ${probe.status}`})`,
      };
}

const user = unprivilegedUid();
let root: string;
/** The awr bundle the user runs, and the readable copy it lives in (when the user is nobody). */
let awrProgram: string;
let programsCopy: string | undefined;

/** `awr ...words` in the project, as the unprivileged user. */
function awrAs(words: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [awrProgram, ...words], {
    cwd: root,
    env: { PATH: process.env["PATH"], HOME: root, NO_COLOR: "1" },
    encoding: "utf8",
    ...(user.uid === undefined ? {} : { uid: user.uid, gid: user.uid }),
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(async () => {
  if (user.cannotRun !== undefined) return;
  root = await demoProject();
  awrProgram = testProgram("awr");
  if (user.uid !== undefined) {
    const copy = await readablePrograms();
    programsCopy = copy.dir;
    awrProgram = join(copy.programs, "awr.js");
    // The project is the user's own; only the permissions below keep them from writing.
    await chmod(join(root, ".."), 0o755);
    for (const path of [root, ...(await allPaths(root))]) await chown(path, user.uid, user.uid);
  }
});
afterAll(async () => {
  if (root !== undefined) await chmod(join(root, ".awr"), 0o755).catch(() => undefined);
  await removeTemps();
  if (programsCopy !== undefined) await rm(programsCopy, { recursive: true, force: true });
});

async function allPaths(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.map((entry) => join(dir, entry));
}

describe("a ledger this user may not write", () => {
  if (user.cannotRun !== undefined) {
    // Not a skip: CI counts a test that cannot run here as a failure to look at.
    it("runs as a user whose file permissions apply", () => {
      throw new Error(`cannot run: ${user.cannotRun}`);
    });
    return;
  }

  it("answers a read-only .awr/ with Storage naming the directory and the fix", async () => {
    const awrDir = join(root, ".awr");
    const database = join(awrDir, "state.db");
    await chmod(awrDir, 0o555);
    try {
      for (const words of [["status"], ["ready"], ["work", "list"], ["doctor"]]) {
        const human = awrAs(words);
        expect(human.code, words.join(" ")).toBe(1);
        expect(human.stdout, words.join(" ")).toBe("");
        expect(human.stderr, words.join(" ")).not.toContain("Internal");
        const lines = human.stderr.trim().split("\n");
        expect(lines[0], words.join(" ")).toBe(
          `error [Storage]: Cannot use the AWR ledger ${database}: this user may not write it or its directory ${awrDir} (attempt to write a readonly database). SQLite writes the database and its state.db-wal and state.db-shm files in ${awrDir}, even to read it; nothing was changed.`,
        );
        expect(lines.at(-1), words.join(" ")).toBe(
          `next: Give this user write access to ${awrDir} and the state.db files in it (e.g. \`chmod u+w ${awrDir} ${database}*\` as their owner), or run awr as the user that owns them.`,
        );
      }
      const json = awrAs(["--json", "session", "list"]);
      expect(json.code).toBe(1);
      expect(json.stdout).toBe("");
      expect(JSON.parse(json.stderr)).toMatchObject({
        code: "Storage",
        details: { database, directory: awrDir, error_code: "SQLITE_READONLY_DIRECTORY" },
      });
      expect((await readdir(awrDir)).sort()).toEqual(["project.toml", "state.db"]);
    } finally {
      await chmod(awrDir, 0o755);
    }
  });

  it("reads a read-only database file and refuses a write to it with the same Storage", async () => {
    const database = join(root, ".awr", "state.db");
    await chmod(database, 0o444);
    try {
      const read = awrAs(["--json", "status"]);
      expect(read.stderr).toBe("");
      expect(read.code).toBe(0);
      const before = (JSON.parse(read.stdout) as { project_revision: number }).project_revision;
      const write = awrAs(["--json", "event", "append", "--type", "note", "--summary", "s"]);
      expect(write.code).toBe(1);
      expect(JSON.parse(write.stderr)).toMatchObject({
        code: "Storage",
        details: { database, error_code: "SQLITE_READONLY" },
      });
      const after = JSON.parse(awrAs(["--json", "status"]).stdout) as { project_revision: number };
      expect(after.project_revision).toBe(before);
    } finally {
      await chmod(database, 0o644);
    }
  });
});
