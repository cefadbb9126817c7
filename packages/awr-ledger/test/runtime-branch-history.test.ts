import { beforeEach, describe, expect, it } from "vitest";
import {
  CALLER,
  createBranch,
  harnessPerCase,
  ledgerFailure,
  ONE_READY,
} from "./fixtures/runtime/harness.js";
import { BACKENDS } from "./helpers/backends.js";

// The event and work histories read events exactly by branch, never relabelled, page by page.
describe.each(BACKENDS)("histories by branch on %s", (backend) => {
  const h = harnessPerCase(backend, ONE_READY);
  let spike: string;
  beforeEach(async () => {
    spike = await createBranch(h);
    for (const [summary, branch] of [
      ["on main", "main"],
      ["on spike", "spike"],
      ["main again", "main"],
    ] as const) {
      await h.runtime.call(
        "awr_event_append",
        {
          event_type: "note.seen",
          summary,
          work: "W-1",
          branch,
          expected_revision: await h.revision(),
        },
        CALLER,
      );
    }
  });

  const notes = (events: { type: string; summary: string | null }[]) =>
    events.filter((e) => e.type === "note.seen").map((e) => e.summary);

  it("filters the event history by exact branch: --main, --branch ID, or every branch", async () => {
    const all = await h.runtime.call("awr_event_history", { event_type: "note.seen" }, CALLER);
    expect(notes(all.events)).toEqual(["on main", "on spike", "main again"]);
    expect(all.events.map((e) => e.branch_id)).toEqual([null, spike, null]);
    const main = await h.runtime.call("awr_event_history", { main: true }, CALLER);
    expect(notes(main.events)).toEqual(["on main", "main again"]);
    const onSpike = await h.runtime.call("awr_event_history", { branch: spike }, CALLER);
    expect(onSpike.events.map((e) => e.type)).toEqual(["branch.created", "note.seen"]);
    const byName = await ledgerFailure(
      h.runtime.call("awr_event_history", { branch: "spike" }, CALLER),
    );
    expect(byName.code).toBe("InvalidInput");
  });

  it("reads a work history on the selected branch unless all_branches, page by page", async () => {
    const mainOnly = await h.runtime.call("awr_work_history", { work: "W-1" }, CALLER);
    expect(notes(mainOnly.events)).toEqual(["on main", "main again"]);
    const seen: (string | null)[] = [];
    let cursor: string | undefined;
    do {
      const page = await h.runtime.call(
        "awr_work_history",
        { work: "W-1", all_branches: true, limit: 1, ...(cursor === undefined ? {} : { cursor }) },
        CALLER,
      );
      seen.push(...notes(page.events));
      cursor = page.next_cursor === null ? undefined : JSON.stringify(page.next_cursor);
    } while (cursor !== undefined);
    expect(seen).toEqual(["on main", "on spike", "main again"]);
  });
});
