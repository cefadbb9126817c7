import { beforeEach, describe, expect, it } from "vitest";
import {
  CALLER,
  checkpoint,
  createBranch,
  harnessPerCase,
  ledgerFailure,
  startSession,
} from "./fixtures/runtime/harness.js";
import { BACKENDS } from "./helpers/backends.js";

// Handoff within one work item and branch (docs/design/work-branches.md R9).
describe.each(BACKENDS)("work handoff on %s", (backend) => {
  const h = harnessPerCase(backend);
  beforeEach(async () => {
    await createBranch(h);
  });

  const handoff = async (args: Record<string, unknown>) =>
    h.runtime.call(
      "awr_work_handoff",
      { work: "W-1", ...args, expected_revision: await h.revision() },
      CALLER,
    );

  it("needs the sender's checkpoint, and a receiver on the same work and branch", async () => {
    const sender = await startSession(h, { work: "W-1", conversation: "a", claim: true });
    const before = await h.revision();
    const early = await ledgerFailure(handoff({ session: sender.session.id }));
    expect([early.code, early.message]).toEqual([
      "ContextIncomplete",
      "save a checkpoint with next action and open loops before handoff",
    ]);
    await checkpoint(h, sender.session.id, "half");
    const onSpike = await startSession(h, { work: "W-1", conversation: "b", branch: "spike" });
    const onOther = await startSession(h, { work: "W-2", conversation: "c" });
    const settled = await h.revision();
    for (const receiver of [onSpike, onOther, sender]) {
      const error = await ledgerFailure(
        handoff({ session: sender.session.id, to_session: receiver.session.id }),
      );
      expect([error.code, error.message]).toEqual([
        "InvalidInput",
        "receiving session must be different and bound to the same work and branch",
      ]);
    }
    const ttl = await ledgerFailure(handoff({ session: sender.session.id, ttl_ms: 1000 }));
    expect(ttl.code).toBe("InvalidInput");
    expect(await h.revision()).toBe(settled);
    expect(settled).toBeGreaterThan(before);
  });

  it("ends the sender as incomplete and moves its claim to the receiver in one revision", async () => {
    const sender = await startSession(h, {
      work: "W-1",
      conversation: "a",
      claim: true,
      ttl_ms: 60_000,
    });
    await checkpoint(h, sender.session.id, "half");
    const receiver = await startSession(h, { work: "W-1", conversation: "b" });
    const done = await handoff({ session: sender.session.id, to_session: receiver.session.id });
    expect(done).toMatchObject({
      context_requires_refresh: true,
      handoff: {
        from_session: { id: sender.session.id, status: "incomplete" },
        to_session: { id: receiver.session.id },
        closed_claim_ids: [sender.claim?.id],
        transferred_claim: {
          session_id: receiver.session.id,
          expires_at: sender.claim?.expires_at,
        },
      },
      event: { event_type: "work.handoff", session_id: sender.session.id },
    });
    const receipts = await h.database.db
      .selectFrom("events")
      .select(["type", "revision", "session"])
      .where("type", "in", ["work.handoff", "session.handoff_received"])
      .execute();
    expect(new Set(receipts.map((r) => Number(r.revision)))).toEqual(
      new Set([done.project_revision]),
    );
    const work = await h.runtime.call("awr_work_get", { work: "W-1" }, CALLER);
    expect(work.work.active_claims.map((c) => c.session_id)).toEqual([receiver.session.id]);
  });
});
