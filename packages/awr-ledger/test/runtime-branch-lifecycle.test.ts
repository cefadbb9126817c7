import { describe, expect, it } from "vitest";
import {
  CALLER,
  harnessPerCase,
  ledgerFailure,
  ONE_READY,
  startSession,
} from "./fixtures/runtime/harness.js";
import { BACKENDS } from "./helpers/backends.js";

// Branch create, list, show and switch as runtime state (docs/design/work-branches.md).
describe.each(BACKENDS)("work branch lifecycle on %s", (backend) => {
  const h = harnessPerCase(backend, ONE_READY);

  const create = async (name: string, extra: Record<string, unknown> = {}) =>
    h.runtime.call(
      "awr_branch_create",
      { name, actor: "lee", reason: "try it", ...extra, expected_revision: await h.revision() },
      CALLER,
    );
  const switchTo = async (branch: string) =>
    h.runtime.call(
      "awr_branch_switch",
      { branch, actor: "lee", reason: "work there", expected_revision: await h.revision() },
      CALLER,
    );
  const snapshot = async () => ({
    revision: await h.revision(),
    branches: await h.database.db.selectFrom("branches").selectAll().execute(),
    state: await h.database.db.selectFrom("project_state").selectAll().execute(),
  });

  it("creates a branch forking at the caller's revision without selecting it", async () => {
    await startSession(h, { work: "W-1", conversation: "c-1" });
    const fork = await h.revision();
    const created = await create("spike");
    expect(created).toMatchObject({
      ok: true,
      project_revision: fork + 1,
      current_branch_id: null,
      git_binding: null,
      git_write_performed: false,
      source_write_performed: false,
      branch: {
        name: "spike",
        parent_branch_id: null,
        fork_project_revision: fork,
        status: "active",
        revision: 1,
        project_id: h.projectId,
      },
      event: { event_type: "branch.created", branch_id: created.branch.id },
    });
    expect(created.branch.id).toMatch(/^[0-9A-Z]{26}$/);
    const listed = await h.runtime.call("awr_branch_list", {}, CALLER);
    expect(listed).toMatchObject({
      current_branch_id: null,
      total: 1,
      offset: 0,
      limit: 50,
      has_more: false,
      main: { name: "main", branch_id: null, selected: true },
    });
    expect(listed.branches.map((b) => b.name)).toEqual(["spike"]);
    const shown = await h.runtime.call("awr_branch_show", { branch: "spike" }, CALLER);
    expect(shown).toMatchObject({
      selected: false,
      name: "spike",
      branch_id: created.branch.id,
      record: { creation_event_id: created.event.id, closure: null, git_binding: null },
    });
    const main = await h.runtime.call("awr_branch_show", {}, CALLER);
    expect(main).toMatchObject({ selected: true, name: "main", branch_id: null, record: null });
  });

  it("switches the project-wide selection and counts what stays on the previous branch", async () => {
    await startSession(h, { work: "W-1", conversation: "c-1", claim: true });
    const spike = await create("spike");
    const switched = await switchTo("spike");
    expect(switched.selection).toEqual({
      previous_branch_id: null,
      current_branch_id: spike.branch.id,
      retained_active_sessions: 1,
      retained_active_claims: 1,
    });
    expect(switched.event).toMatchObject({ event_type: "branch.switched" });
    const listed = await h.runtime.call("awr_branch_list", {}, CALLER);
    expect(listed.current_branch_id).toBe(spike.branch.id);
    expect(listed.main.selected).toBe(false);
    // Back to main by its explicit name; the same selection again is refused.
    await switchTo("main");
    const before = await snapshot();
    const again = await ledgerFailure(switchTo("main"));
    expect(again.code).toBe("InvalidTransition");
    expect(again.message).toContain("already selected");
    expect(await snapshot()).toEqual(before);
  });

  it("refuses bad names, duplicates, unknown selectors and blank actors, changing nothing", async () => {
    await create("spike");
    const before = await snapshot();
    for (const [args, code, text] of [
      [{ name: "main" }, "InvalidInput", "reserved"],
      [{ name: " padded" }, "InvalidInput", "whitespace"],
      [{ name: "x".repeat(129) }, "InvalidInput", "bytes"],
      [{ name: "spike" }, "InvalidInput", "already exists"],
      [{ name: "other", actor: "  " }, "InvalidInput", "actor"],
      [{ name: "other", parent: "nope" }, "NotFound", "work branch nope"],
      [{ name: "other", git_ref: "-x" }, "InvalidInput", "git ref"],
    ] as const) {
      const error = await ledgerFailure(create(args.name, args));
      expect([error.code, error.message]).toEqual([code, expect.stringContaining(text)]);
    }
    const unknown = await ledgerFailure(switchTo("nope"));
    expect(unknown.code).toBe("NotFound");
    const blank = await ledgerFailure(switchTo(" "));
    expect(blank.code).toBe("InvalidInput");
    expect(await snapshot()).toEqual(before);
  });

  it("replays a journaled create with its first answer, even after a switch", async () => {
    const args = async () => ({
      name: "spike",
      actor: "lee",
      reason: "try it",
      request_id: "create-spike",
      expected_revision: await h.revision(),
    });
    const first = await h.runtime.call("awr_branch_create", await args(), CALLER);
    await switchTo("spike");
    const retry = await h.runtime.call(
      "awr_branch_create",
      { ...(await args()), expected_revision: first.branch.fork_project_revision },
      CALLER,
    );
    expect(retry).toMatchObject({ replayed: true, branch: first.branch });
    expect(await h.database.db.selectFrom("branches").selectAll().execute()).toHaveLength(1);
  });
});
