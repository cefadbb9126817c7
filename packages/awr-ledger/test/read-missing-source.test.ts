import { renameSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BACKENDS } from "./helpers/backends.js";
import { type OpenProject, openFixtureProject } from "./helpers/projects.js";

/**
 * A source file that is gone (the work ledger after a checkout of a branch without it, or a
 * typo in .awr/project.toml) contributes nothing, so status and ready must say so instead of
 * answering as if all work were done; nothing is deleted: the file's work, with the claims
 * recorded against it, is back when the file is. Both backends, CLI-style refreshing reads and
 * tool reads.
 */

const caller = { client: "stdio" };

describe.each(BACKENDS)("a missing source in status and ready, %s", (backend) => {
  let p: OpenProject;
  beforeEach(async () => {
    p = await openFixtureProject("basic", backend);
  });
  afterEach(() => p.close());

  it("reports the missing work ledger as a source issue, never as all work done, and recovers", async () => {
    await p.ledger.call(
      "awr_session_start",
      {
        work: "PAY-2",
        conversation: "c1",
        agent: "a",
        provider: "p",
        model: "m",
        claim: true,
        expected_revision: await p.ledger.revision(),
      },
      caller,
    );
    const ledgerFile = join(p.root, "work-ledger.yaml");
    renameSync(ledgerFile, `${ledgerFile}.away`);

    const status = await p.ledger.call("awr_project_status", { view: "full" }, caller, {
      refresh: true,
    });
    expect(status.total).toBe(0);
    expect(status.source_issues).toEqual([
      {
        path: "work-ledger.yaml",
        line: null,
        severity: "warning",
        message: expect.stringMatching(
          /^source file work-ledger\.yaml does not exist, so nothing it holds .* is counted; restore it .* or fix its path in \.awr\/project\.toml/,
        ),
      },
    ]);
    expect(status.source_warnings).toBe(1);
    expect(status.next_action).not.toMatch(/No open work remains/);
    expect(status.next_action).toMatch(/^Restore work-ledger\.yaml or fix its path/);

    const ready = await p.ledger.call("awr_work_ready", {}, caller, { refresh: true });
    expect(ready.ready_total).toBe(0);
    expect(ready.source_issues).toEqual(status.source_issues);
    expect(ready.source_warnings).toBe(1);
    // A tool read (no refresh) of the same, now indexed, state answers the same.
    const plain = await p.ledger.call("awr_project_status", { view: "summary" }, caller);
    expect(plain.source_issues).toEqual(status.source_issues);

    renameSync(`${ledgerFile}.away`, ledgerFile);
    const back = await p.ledger.call("awr_project_status", { view: "full" }, caller, {
      refresh: true,
    });
    expect(back.source_issues).toEqual([]);
    expect(back.source_warnings).toBe(0);
    expect(back.total).toBeGreaterThan(0);
    // The claim recorded against PAY-2 is still in force: it makes the item current work.
    expect(back.current).toEqual([expect.objectContaining({ external_key: "PAY-2" })]);
  });

  it("reports no source issue while every source exists", async () => {
    const status = await p.ledger.call("awr_project_status", { view: "full" }, caller);
    expect(status).toMatchObject({ source_issues: [], source_warnings: 0 });
    const ready = await p.ledger.call("awr_work_ready", {}, caller);
    expect(ready).toMatchObject({ source_issues: [], source_warnings: 0 });
  });
});
