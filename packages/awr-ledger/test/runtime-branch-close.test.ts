import { beforeEach, describe, expect, it } from "vitest";
import {
  CALLER,
  createBranch,
  harnessPerCase,
  ledgerFailure,
  startSession,
} from "./fixtures/runtime/harness.js";
import { BACKENDS } from "./helpers/backends.js";

// Closing a branch (docs/design/work-branches.md R5): nothing may still run on it, every open
// loop gets one disposition, and a closed branch refuses new runtime state but stays readable.
describe.each(BACKENDS)("branch close on %s", (backend) => {
  const h = harnessPerCase(backend);
  let spike: string;
  beforeEach(async () => {
    spike = await createBranch(h);
  });

  const close = async (input: Record<string, unknown>) =>
    h.runtime.call(
      "awr_branch_close",
      {
        branch: "spike",
        input,
        actor: "lee",
        reason: "done",
        expected_revision: await h.revision(),
      },
      CALLER,
    );
  const snapshot = async () => ({
    revision: await h.revision(),
    branches: await h.database.db.selectFrom("branches").selectAll().execute(),
  });

  /** A session on the branch that saved one open loop and ended. */
  async function endedWithLoop(): Promise<{ checkpoint: string }> {
    const started = await startSession(h, { work: "W-1", conversation: "c", branch: "spike" });
    const saved = await h.runtime.call(
      "awr_session_checkpoint",
      {
        session: started.session.id,
        digest: "half",
        next_action: "finish",
        context_hash: "sha256:x",
        open_loops: ["check the index"],
        expected_revision: await h.revision(),
      },
      CALLER,
    );
    await h.runtime.call(
      "awr_session_end",
      { session: started.session.id, outcome: "ended", expected_revision: await h.revision() },
      CALLER,
    );
    return { checkpoint: saved.checkpoint.id };
  }

  it("refuses while a session is active, naming the blocker, and changes nothing", async () => {
    await startSession(h, { work: "W-1", conversation: "c", branch: "spike", claim: true });
    const before = await snapshot();
    const error = await ledgerFailure(
      close({ version: 1, outcome: "abandoned", summary: "s", merge: null, open_loops: [] }),
    );
    expect(error.code).toBe("InvalidTransition");
    expect(error.message).toContain("active session");
    expect(error.message).toContain("active claim");
    expect(await snapshot()).toEqual(before);
  });

  it("needs exactly one disposition per open loop, with the loop's exact text", async () => {
    const { checkpoint } = await endedWithLoop();
    const plan = await h.runtime.call(
      "awr_branch_show",
      { branch: "spike", close_plan: true },
      CALLER,
    );
    expect(plan).toMatchObject({
      blockers: [],
      open_loops: [
        { checkpoint_id: checkpoint, index: 0, text: "check the index", work_item_id: "W-1" },
      ],
    });
    const before = await snapshot();
    const base = { version: 1, outcome: "abandoned", summary: "s", merge: null };
    const missing = await ledgerFailure(close({ ...base, open_loops: [] }));
    expect(missing.code).toBe("InvalidInput");
    const resolution = { outcome: "resolved", reason: "done", references: ["pr#1"] };
    const changed = await ledgerFailure(
      close({
        ...base,
        open_loops: [{ checkpoint_id: checkpoint, index: 0, text: "other", resolution }],
      }),
    );
    expect(changed.code).toBe("SourceConflict");
    const merged = await ledgerFailure(close({ ...base, outcome: "merged", open_loops: [] }));
    expect(merged.code).toBe("InvalidInput");
    expect(await snapshot()).toEqual(before);
  });

  it("closes, carries a loop forward, moves the selection, and refuses new state after", async () => {
    const { checkpoint } = await endedWithLoop();
    await h.runtime.call(
      "awr_branch_switch",
      { branch: "spike", actor: "lee", reason: "r", expected_revision: await h.revision() },
      CALLER,
    );
    const closed = await close({
      version: 1,
      outcome: "abandoned",
      summary: "the spike did not pay off",
      merge: null,
      open_loops: [
        {
          checkpoint_id: checkpoint,
          index: 0,
          text: "check the index",
          resolution: { outcome: "carry_forward", reason: "still needed", work_item_key: "W-2" },
        },
      ],
    });
    expect(closed).toMatchObject({
      branch: { id: spike, status: "abandoned", revision: 2 },
      receipt: {
        outcome: "abandoned",
        target_branch_id: null,
        previous_branch_id: spike,
        current_branch_id: null,
        open_loops: [{ carried_to: { work_item_key: "W-2" } }],
      },
      event: { event_type: "branch.closed", branch_id: spike },
    });
    const carried = await h.database.db
      .selectFrom("events")
      .select(["branch", "work"])
      .where("type", "=", "branch.loop_carried")
      .execute();
    expect(carried).toEqual([{ branch: null, work: "W-2" }]);
    expect((await h.runtime.call("awr_branch_list", {}, CALLER)).current_branch_id).toBeNull();
    const before = await h.revision();
    const start = await ledgerFailure(
      startSession(h, { work: "W-1", conversation: "d", branch: "spike" }),
    );
    expect([start.code, start.message]).toEqual([
      "NotFound",
      expect.stringContaining("active branch"),
    ]);
    const note = await ledgerFailure(
      h.runtime.call(
        "awr_event_append",
        { event_type: "note.x", summary: "x", branch: "spike", expected_revision: before },
        CALLER,
      ),
    );
    expect(note.code).toBe("NotFound");
    expect(await h.revision()).toBe(before);
    const shown = await h.runtime.call("awr_branch_show", { branch: "spike" }, CALLER);
    expect(shown).toMatchObject({ record: { closure: { event_id: closed.event.id } } });
    const work = await h.runtime.call("awr_work_get", { work: "W-1", branch: "spike" }, CALLER);
    expect(work.work.work).toBe("W-1");
  });
});
