// The ledger tracks who holds the project lock by passing the holder's store, not through
// AsyncLocalStorage: on Node 20 that installs promise hooks, which tax every promise of the
// process (the whole service, reads included). A process that writes and reads through the
// ledger must still run its promise continuations with no async id: none is tracked.
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { copyFixture } from "./helpers/projects.js";

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
const CHILD = join(PACKAGE_DIR, "test", "fixtures", "promise-hooks-child.ts");

describe("the ledger and promise hooks", () => {
  let project: { root: string; remove(): void } | undefined;
  afterEach(() => project?.remove());

  it("leaves promises untracked after journaled and direct writes and reads", () => {
    project = copyFixture("basic");
    const child = spawnSync(process.execPath, ["--import", "tsx", CHILD, project.root], {
      cwd: PACKAGE_DIR,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(child.stderr).toBe("");
    expect(child.status).toBe(0);
    expect(child.stdout).toBe("0");
  });
});
