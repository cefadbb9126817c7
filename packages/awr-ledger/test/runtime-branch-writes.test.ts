import { beforeEach, describe, expect, it } from "vitest";
import {
  CALLER,
  checkpoint,
  createBranch,
  harnessPerCase,
  ledgerFailure,
  resume,
  startSession,
} from "./fixtures/runtime/harness.js";
import { BACKENDS } from "./helpers/backends.js";

// Writes carry their branch: events bind to their session's (R6), evidence and sessions to
// the named or selected branch, resume requires the original branch (R10).
describe.each(BACKENDS)("branch-aware writes on %s", (backend) => {
  const h = harnessPerCase(backend);
  let spike: string;
  beforeEach(async () => {
    spike = await createBranch(h);
  });

  const append = async (args: Record<string, unknown>) =>
    h.runtime.call(
      "awr_event_append",
      { event_type: "note.seen", summary: "seen", ...args, expected_revision: await h.revision() },
      CALLER,
    );
  const switchTo = async (branch: string) =>
    h.runtime.call(
      "awr_branch_switch",
      { branch, actor: "lee", reason: "r", expected_revision: await h.revision() },
      CALLER,
    );

  it("binds an event to its session's branch, and refuses a conflicting branch or work", async () => {
    const started = await startSession(h, { work: "W-1", conversation: "c", branch: "spike" });
    const inferred = await append({ session: started.session.id });
    expect(inferred.event).toMatchObject({ branch_id: spike, work: "W-1" });
    const same = await append({ session: started.session.id, branch: spike });
    expect(same.event.branch_id).toBe(spike);
    const before = await h.revision();
    const onMain = await ledgerFailure(append({ session: started.session.id, branch: "main" }));
    expect([onMain.code, onMain.message]).toEqual([
      "InvalidInput",
      expect.stringContaining("event branch conflicts with its session binding"),
    ]);
    const otherWork = await ledgerFailure(append({ session: started.session.id, work: "W-2" }));
    expect([otherWork.code, otherWork.message]).toEqual([
      "InvalidInput",
      expect.stringContaining("event work conflicts with its session binding"),
    ]);
    expect(await h.revision()).toBe(before);
  });

  it("puts an event without a session on the named branch, else the selected default", async () => {
    expect((await append({})).event.branch_id).toBeNull();
    expect((await append({ branch: "spike" })).event.branch_id).toBe(spike);
    await switchTo("spike");
    expect((await append({})).event.branch_id).toBe(spike);
    expect((await append({ branch: "main" })).event.branch_id).toBeNull();
  });

  it("records evidence on the selected default unless a branch is named", async () => {
    const record = async (key: string, branch?: string) =>
      h.runtime.call(
        "awr_evidence_record",
        {
          external_key: key,
          evidence_type: "test",
          level: "locally_verified",
          summary: "ran",
          locator: "ci://1",
          scope: ["W-1"],
          ...(branch === undefined ? {} : { branch }),
          expected_revision: await h.revision(),
        },
        CALLER,
      );
    expect((await record("ev-1")).evidence.branch_id).toBeNull();
    await switchTo("spike");
    expect((await record("ev-2")).evidence.branch_id).toBe(spike);
    expect((await record("ev-3", "main")).evidence.branch_id).toBeNull();
  });

  it("starts sessions on the selected default, and reuses a binding only on its branch", async () => {
    await switchTo("spike");
    const started = await startSession(h, { work: "W-1", conversation: "c" });
    expect(started.session.branch_id).toBe(spike);
    const reused = await startSession(h, { work: "W-1", conversation: "c" });
    expect(reused).toMatchObject({ binding_reused: true, session: { id: started.session.id } });
    const elsewhere = await ledgerFailure(
      startSession(h, { work: "W-1", conversation: "c", branch: "main" }),
    );
    expect(elsewhere.code).toBe("SourceConflict");
    const saved = await checkpoint(h, started.session.id, "halfway");
    expect(saved.checkpoint.branch_id).toBe(spike);
  });

  it("resumes only while the session's branch is the selected one", async () => {
    const started = await startSession(h, { work: "W-1", conversation: "c", branch: "spike" });
    const before = await h.revision();
    const refused = await ledgerFailure(resume(h, started.session.id));
    expect([refused.code, refused.message]).toEqual([
      "InvalidInput",
      expect.stringContaining("resume requires the current project branch"),
    ]);
    expect(refused.message).toContain("awr branch switch spike");
    expect(await h.revision()).toBe(before);
    await switchTo("spike");
    const resumed = await resume(h, started.session.id);
    expect(resumed.resumed.session.branch_id).toBe(spike);
  });
});
