import { ledgerStore } from "@awr/awr-ledger/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ledgerFailure } from "./fixtures/runtime/harness.js";
import { BACKENDS } from "./helpers/backends.js";
import { type OpenProject, openFixtureProject } from "./helpers/projects.js";

/**
 * Waits and replies across a session's lineage: a question blocks the work until it is
 * answered by its wait id alone, the answer stays visible to the session and to the successor
 * it is resumed into (question, reply, status and whose session asked), a wait can be cancelled,
 * and no other client can answer it.
 */

const A = { client: "client-a" };
const B = { client: "client-b" };

describe.each(BACKENDS)("continuity through waits on %s", (backend) => {
  let p: OpenProject;
  beforeEach(async () => {
    p = await openFixtureProject("basic", backend);
  });
  afterEach(() => p.close());

  const revision = () => ledgerStore(p.ledger).currentRevision();
  const ask = async (session: string, question: string, request_id?: string) =>
    p.ledger.call(
      "awr_session_wait",
      {
        session,
        question,
        context_hash: "sha256:last-packet",
        digest: "The redirect endpoint is drafted.",
        next_action: "Wire the provider account once answered",
        open_loops: ["which account"],
        expected_revision: await revision(),
        ...(request_id === undefined ? {} : { request_id }),
      },
      A,
    );
  const progress = async (session: string) =>
    p.ledger.call(
      "awr_work_transition",
      {
        work: "PAY-2",
        action: "progress",
        session,
        reason: "Start on the hosted page",
        expected_revision: await revision(),
      },
      A,
    );

  it("blocks the work on a question until it is answered, and shows the answer to the successor", async () => {
    const started = await p.ledger.call(
      "awr_session_start",
      {
        work: "PAY-2",
        conversation: "first",
        agent: "agent",
        provider: "provider",
        model: "model",
        claim: true,
        expected_revision: await revision(),
      },
      A,
    );
    const session = started.session.id;
    const asked = await ask(session, "Which provider account should the page use?");
    const wait = asked.wait.id;
    expect(asked.wait).toMatchObject({ status: "waiting_user", session_id: session, reply: null });

    const before = await revision();
    const refused = await ledgerFailure(progress(session));
    expect(refused.code).toBe("InvalidTransition");
    expect(refused.message).toContain(wait);
    const twice = await ledgerFailure(ask(session, "And a second question?"));
    expect(twice.code).toBe("InvalidTransition");
    const stolen = await ledgerFailure(
      p.ledger.call(
        "awr_session_reply",
        { wait, reply: "the other team's", expected_revision: before },
        B,
      ),
    );
    expect(stolen.code).toBe("RuleViolation");
    expect(await revision()).toBe(before);

    const answer = { wait, reply: "The sandbox account", expected_revision: before };
    const replied = await p.ledger.call(
      "awr_session_reply",
      { ...answer, request_id: "reply-1" },
      A,
    );
    expect(replied.wait).toMatchObject({ id: wait, status: "answered", reply: answer.reply });
    // A retry of the same reply replays it; the same request_id with other arguments is refused.
    const again = await p.ledger.call("awr_session_reply", { ...answer, request_id: "reply-1" }, A);
    expect(again.replayed).toBe(true);
    const changed = await ledgerFailure(
      p.ledger.call(
        "awr_session_reply",
        { ...answer, reply: "Another account", request_id: "reply-1" },
        A,
      ),
    );
    expect(changed.code).toBe("SourceConflict");
    await progress(session);

    const seen = await p.ledger.call("awr_session_get", { session }, A);
    expect(seen.wait).toBeNull();
    expect(seen.waits).toEqual([
      expect.objectContaining({
        id: wait,
        session_id: session,
        question: "Which provider account should the page use?",
        reply: "The sandbox account",
        status: "answered",
      }),
    ]);

    const resumed = await p.ledger.call(
      "awr_session_resume",
      {
        session,
        conversation: "second",
        agent: "agent",
        provider: "provider",
        model: "model-2",
        goals: ["goal#checkout"],
        expected_revision: await revision(),
      },
      A,
    );
    expect(resumed.context_ready).toBe(true);
    expect(resumed.context).toMatchObject({ work_context: expect.any(Object) });
    const successor = resumed.resumed.session.id;
    const inherited = await p.ledger.call("awr_session_get", { session: successor }, A);
    expect(inherited.session.predecessor).toBe(session);
    expect(inherited.waits).toEqual([
      expect.objectContaining({ id: wait, session_id: session, status: "answered" }),
    ]);

    const second = await ask(successor, "Ship behind a flag?");
    const cancelled = await p.ledger.call(
      "awr_session_reply",
      {
        wait: second.wait.id,
        reply: "Not needed: the flag was dropped",
        cancel: true,
        expected_revision: await revision(),
      },
      A,
    );
    expect(cancelled.wait).toMatchObject({ status: "cancelled" });
    const late = await ledgerFailure(
      p.ledger.call(
        "awr_session_reply",
        { wait: second.wait.id, reply: "yes", expected_revision: await revision() },
        A,
      ),
    );
    expect(late.code).toBe("InvalidTransition");
    const lineage = await p.ledger.call("awr_session_get", { session: successor }, A);
    expect(lineage.waits.map((w) => [w.session_id, w.status])).toEqual([
      [successor, "cancelled"],
      [session, "answered"],
    ]);
  });
});
