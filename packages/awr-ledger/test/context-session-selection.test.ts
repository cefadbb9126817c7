import type { LedgerError } from "@awr/awr-ledger";
import { ledgerStore } from "@awr/awr-ledger/testing";
import { afterEach, describe, expect, it } from "vitest";
import { BACKENDS } from "./helpers/backends.js";
import { compileL1 } from "./helpers/context.js";
import { type OpenProject, openFixtureProject } from "./helpers/projects.js";

const caller = { client: "stdio" };
const goals = ["goal#checkout"];
const ASKED = "Should the refund path reuse the capture endpoint?";
const ANSWERED = "Keep refunds on their own endpoint.";

// Which session a packet is compiled for, and what it then states: the original's select_work
// uses the caller's one active session when none is named (never when detached), refuses a
// session of another branch, and without a session starts the delta at the latest checkpoint of
// a session that is no longer active ("previous_closed_session").
describe.each(BACKENDS)("context session selection on %s", (backend) => {
  let p: OpenProject | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  const revision = () => ledgerStore((p as OpenProject).ledger).currentRevision();

  async function start(conversation: string, extra: Record<string, unknown> = {}, who = caller) {
    const ledger = (p as OpenProject).ledger;
    const started = await ledger.call(
      "awr_session_start",
      {
        work: "PAY-2",
        conversation,
        agent: "agent-r",
        provider: "provider-r",
        model: "model-r",
        expected_revision: await revision(),
        ...extra,
      },
      who,
    );
    return started.session.id;
  }

  /** A session that asked a question, got the answer, and saved a checkpoint after it. */
  async function answeredSession(conversation: string) {
    const ledger = (p as OpenProject).ledger;
    const session = await start(conversation, { claim: true });
    const first = await compileL1(ledger, { session, goals });
    const waited = await ledger.call("awr_session_wait", {
      session,
      question: ASKED,
      digest: "Refund flow sketched; the endpoint choice is open.",
      next_action: "Wire the refund endpoint",
      context_hash: first.work_context?.context_hash ?? "",
      open_loops: ["refund endpoint"],
      expected_revision: await revision(),
    });
    await ledger.call("awr_session_reply", {
      wait: waited.wait.id,
      reply: ANSWERED,
      expected_revision: await revision(),
    });
    return { session, wait: waited.wait.id, checkpoint: waited.checkpoint };
  }

  it("compiles {work} for the caller's one active session of it, with its answered wait", async () => {
    p = await openFixtureProject("basic", backend);
    const { session, wait, checkpoint } = await answeredSession("conv-sel-1");
    const ctx = await compileL1(p.ledger, { work: "PAY-2", goals }, caller);
    expect(ctx.selection_basis).toBe("explicit_work");
    expect(ctx.session_id).toBe(session);
    expect(ctx.checkpoint_id).toBe(checkpoint.id);
    expect(ctx.continuity.waits).toEqual([
      expect.objectContaining({ id: wait, status: "answered", reply: ANSWERED }),
    ]);
    // Nothing given at all: the same session, and its work.
    const bare = await compileL1(p.ledger, { goals }, caller);
    expect(bare).toMatchObject({ selection_basis: "session", session_id: session });
    // Another client's active session is never borrowed.
    const other = await compileL1(p.ledger, { work: "PAY-2", goals }, { client: "elsewhere" });
    expect(other.session_id).toBeNull();
    expect(other.continuity.waits).toEqual([]);
  });

  it("refuses to guess between two active sessions of the work", async () => {
    p = await openFixtureProject("basic", backend);
    const a = await start("conv-sel-a");
    const b = await start("conv-sel-b");
    const refused = (await compileL1(p.ledger, { work: "PAY-2", goals }, caller).catch(
      (e: unknown) => e,
    )) as LedgerError;
    expect(refused.code).toBe("InvalidInput");
    expect(refused.message).toContain(a);
    expect(refused.message).toContain(b);
    // An agent that only one of them has resolves it.
    const third = await start("conv-sel-c", { agent: "agent-other" });
    const ctx = await compileL1(p.ledger, { work: "PAY-2", agent: "agent-other", goals }, caller);
    expect(ctx.session_id).toBe(third);
  });

  it("keeps a detached packet free of the active session's checkpoint, and starts it at a closed session's", async () => {
    p = await openFixtureProject("basic", backend);
    const { session, checkpoint } = await answeredSession("conv-sel-d");
    const detached = await compileL1(p.ledger, { work: "PAY-2", detached: true, goals }, caller);
    expect(detached.session_id).toBeNull();
    expect(detached.checkpoint_id).toBeNull();
    expect(detached.delta_after_revision).toBe(0);
    const text = detached.work_context?.rendered_context ?? "";
    expect(text).not.toContain("[checkpoint]");
    expect(text).not.toContain("refund endpoint");
    expect(text).toContain("(project_start)");

    await p.ledger.call("awr_session_end", {
      session,
      outcome: "ended",
      expected_revision: await revision(),
    });
    const after = await compileL1(p.ledger, { work: "PAY-2", detached: true, goals }, caller);
    expect(after.checkpoint_id).toBe(checkpoint.id);
    expect(after.delta_after_revision).toBe(checkpoint.revision);
    const later = after.work_context?.rendered_context ?? "";
    expect(later).toContain(
      `after project revision ${checkpoint.revision} (previous_closed_session)`,
    );
    expect(later).toContain("Checkpoint open loops:\nrefund endpoint");
  });

  it("refuses to compile a branch session's context on another branch", async () => {
    p = await openFixtureProject("basic", backend);
    await p.ledger.call(
      "awr_branch_create",
      {
        name: "refunds",
        actor: "lee",
        reason: "refund spike",
        expected_revision: await revision(),
      },
      caller,
    );
    const session = await start("conv-sel-branch", { branch: "refunds" });
    const refused = (await compileL1(p.ledger, { session, goals }, caller).catch(
      (e: unknown) => e,
    )) as LedgerError;
    expect(refused.code).toBe("InvalidInput");
    expect(refused.message).toContain(
      "context session does not match the selected work, agent or branch",
    );
    const onBranch = await compileL1(p.ledger, { session, branch: "refunds", goals }, caller);
    expect(onBranch.session_id).toBe(session);
    expect(onBranch.completeness.branch_id).not.toBeNull();
    // Without a session, the branch session is not borrowed for a packet of main.
    const main = await compileL1(p.ledger, { work: "PAY-2", goals }, caller);
    expect(main.session_id).toBeNull();
  });
});
