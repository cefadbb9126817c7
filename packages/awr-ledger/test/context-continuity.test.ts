import { ledgerStore } from "@awr/awr-ledger/testing";
import { afterEach, describe, expect, it } from "vitest";
import { BACKENDS } from "./helpers/backends.js";
import { compileL1 } from "./helpers/context.js";
import { type OpenProject, openFixtureProject } from "./helpers/projects.js";

const caller = { client: "stdio" };
const QUESTION = "Which provider account should the hosted page use?";
const ANSWER = "The sandbox account until launch week.";

// An answered wait must reach the next turn and a resumed successor: in `continuity`, beside
// the packet, not inside its text, budget or hash.
describe.each(BACKENDS)("continuity of waits and replies on %s", (backend) => {
  let p: OpenProject | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  const revision = () => ledgerStore((p as OpenProject).ledger).currentRevision();

  async function sessionWithAnsweredWait() {
    const ledger = (p as OpenProject).ledger;
    const started = await ledger.call("awr_session_start", {
      work: "PAY-2",
      conversation: "conv-1",
      agent: "agent-a",
      provider: "provider-a",
      model: "model-a",
      claim: true,
      expected_revision: await revision(),
    });
    const session = started.session.id;
    const worked = await compileL1(ledger, { session, goals: ["goal#checkout"] });
    const waited = await ledger.call("awr_session_wait", {
      session,
      question: QUESTION,
      digest: "Redirect endpoint drafted; the provider account is undecided.",
      next_action: "Configure the provider account",
      context_hash: worked.work_context?.context_hash ?? "",
      open_loops: ["provider account", "webhook secret rotation"],
      expected_revision: await revision(),
    });
    const pending = await compileL1(ledger, { session, goals: ["goal#checkout"] });
    expect(pending.continuity.pending_wait_ids).toEqual([waited.wait.id]);
    expect(pending.continuity.waits).toEqual([
      expect.objectContaining({
        id: waited.wait.id,
        question: QUESTION,
        status: "waiting_user",
        reply: null,
      }),
    ]);
    await ledger.call("awr_session_reply", {
      wait: waited.wait.id,
      reply: ANSWER,
      expected_revision: await revision(),
    });
    return { session, wait: waited.wait.id, checkpoint: waited.checkpoint.id };
  }

  it("carries the question and the answer into the session's next packet, outside the packet", async () => {
    p = await openFixtureProject("basic", backend);
    const { session, wait } = await sessionWithAnsweredWait();
    const next = await compileL1(p.ledger, { session, goals: ["goal#checkout"] }, caller);
    expect(next.session_id).toBe(session);
    expect(next.selection_basis).toBe("session");
    expect(next.continuity).toMatchObject({
      session_id: session,
      pending_wait_ids: [],
      waits: [
        { id: wait, session_id: session, question: QUESTION, status: "answered", reply: ANSWER },
      ],
      predecessors: [],
    });
    // Not part of the packet: not rendered, not counted, not among the hashed facts.
    expect(JSON.stringify(next.work_context)).not.toContain(ANSWER);
    expect(JSON.stringify(next.completeness)).not.toContain(ANSWER);
    expect(next.work_context?.rendered_context).toContain("provider account");
  });

  it("hands a resumed successor its predecessor's answered wait, last checkpoint and open loops", async () => {
    p = await openFixtureProject("basic", backend);
    const { session, wait, checkpoint } = await sessionWithAnsweredWait();
    const resumed = await p.ledger.call("awr_session_resume", {
      session,
      conversation: "conv-2",
      agent: "agent-a",
      provider: "provider-a",
      model: "model-a",
      expected_revision: await revision(),
    });
    const successor = resumed.resumed.session.id;
    const ctx = await compileL1(
      p.ledger,
      { conversation: "conv-2", goals: ["goal#checkout"] },
      caller,
    );
    expect(ctx.session_id).toBe(successor);
    expect(ctx.checkpoint_id).toBe(checkpoint);
    expect(ctx.continuity.session_id).toBe(successor);
    // The successor's own continuity carries the wait its predecessor asked, with the reply.
    expect(ctx.continuity.waits).toEqual([
      expect.objectContaining({ id: wait, session_id: session, status: "answered", reply: ANSWER }),
    ]);
    expect(ctx.continuity.pending_wait_ids).toEqual([]);
    const resumedContext = resumed.context as { continuity: { waits: { reply: string | null }[] } };
    expect(resumedContext.continuity.waits[0]?.reply).toBe(ANSWER);
    expect(ctx.continuity.predecessors).toEqual([
      expect.objectContaining({
        session_id: session,
        status: "interrupted",
        open_loops: ["provider account", "webhook secret rotation"],
        last_checkpoint_id: checkpoint,
        wait_ids: [wait],
      }),
    ]);
    // The inherited checkpoint is a required fact of the successor's packet.
    expect(ctx.work_context?.rendered_context).toContain(
      "Checkpoint open loops:\nprovider account",
    );
    expect(ctx.completeness.complete).toBe(true);

    const l0 = await p.ledger.call("awr_context_bootstrap", { session: successor }, caller);
    expect(l0.context.checkpoint_origin).toBe("handoff");
    expect(l0.continuity.predecessors[0]?.wait_ids).toEqual([wait]);
    expect(l0.continuity.waits[0]?.reply).toBe(ANSWER);
    expect(l0.rendered_context).not.toContain(ANSWER);
  });
});
