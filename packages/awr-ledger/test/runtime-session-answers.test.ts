import { describe, expect, it } from "vitest";
import {
  CALLER,
  checkpoint,
  harnessPerCase,
  ledgerFailure,
  openWait,
  reply,
  resume,
  startSession,
} from "./fixtures/runtime/harness.js";
import { BACKENDS } from "./helpers/backends.js";

/**
 * The session tools answer with the fields a host written for the original reads: the binding,
 * the event each write appended, the claims an end closed, the session's continuity state, and a
 * conversation that another agent identity cannot take over.
 */
describe.each(BACKENDS)("session answers on %s", (backend) => {
  const h = harnessPerCase(backend);

  const eventType = async (id: unknown) =>
    (
      await h.database.db
        .selectFrom("events")
        .select("type")
        .where("id", "=", String(id))
        .executeTakeFirst()
    )?.type;

  it("names the binding and the session.started event of a new session", async () => {
    const started = await startSession(h, { work: "W-1", conversation: "conv-1" });
    expect(started).toMatchObject({
      binding: { client: CALLER.client, conversation: "conv-1" },
      binding_reused: false,
    });
    expect(started.binding_reused).toBe(false);
    if (started.binding_reused) return;
    expect(await eventType(started.event_id)).toBe("session.started");
  });

  it("answers a reused binding with the session as awr_session_get shows it and what to do next", async () => {
    const first = await startSession(h, { work: "W-1", conversation: "conv-1", claim: true });
    const again = await startSession(h, { work: "W-1", conversation: "conv-1", claim: true });
    const got = await h.runtime.call("awr_session_get", { session: first.session.id }, CALLER);
    expect(again).toMatchObject({
      binding_reused: true,
      binding: got.binding,
      session: got.session,
      claims: got.claims,
      claim: first.claim,
      continuity_state: "available",
      next_action: expect.stringContaining("awr_session_resume"),
    });
  });

  it("refuses a bound conversation to another agent, provider or model, spending nothing", async () => {
    await startSession(h, { work: "W-1", conversation: "conv-1" });
    const before = await h.revision();
    for (const other of [{ agent: "agent-b" }, { provider: "prov-2" }, { model: "model-2" }]) {
      const error = await ledgerFailure(
        h.runtime.call(
          "awr_session_start",
          {
            work: "W-1",
            conversation: "conv-1",
            agent: "agent-a",
            provider: "prov",
            model: "model-1",
            ...other,
            expected_revision: before,
          },
          CALLER,
        ),
      );
      expect({ other, code: error.code }).toEqual({ other, code: "SourceConflict" });
      expect(error.message).toContain("awr_session_resume");
    }
    expect(await h.revision()).toBe(before);
  });

  it("names the event of a checkpoint and of each claim action", async () => {
    const s = await startSession(h, { work: "W-1", conversation: "conv-1" });
    const cp = await checkpoint(h, s.session.id, "half done");
    expect(await eventType(cp.event_id)).toBe("checkpoint.created");
    const acquired = await h.runtime.call(
      "awr_session_claim",
      { session: s.session.id, action: "acquire", expected_revision: await h.revision() },
      CALLER,
    );
    expect(await eventType(acquired.event_id)).toBe("work.claimed");
    const released = await h.runtime.call(
      "awr_session_claim",
      {
        session: s.session.id,
        action: "release",
        claim: acquired.claim.id,
        expected_revision: await h.revision(),
      },
      CALLER,
    );
    expect(await eventType(released.event_id)).toBe("claim.released");
  });

  it("lists the ids of the claims an end closed and names its event", async () => {
    const s = await startSession(h, { work: "W-1", conversation: "conv-1", claim: true });
    const ended = await h.runtime.call(
      "awr_session_end",
      { session: s.session.id, outcome: "ended", expected_revision: await h.revision() },
      CALLER,
    );
    expect(ended.closed_claim_ids).toEqual([s.claim?.id]);
    expect(ended.closed_claim_ids).toEqual(ended.released_claims.map((c) => c.id));
    expect(await eventType(ended.event_id)).toBe("session.ended");
  });

  it("scopes the session list to the calling client and says so", async () => {
    await startSession(h, { work: "W-1", conversation: "conv-1" });
    const list = await h.runtime.call("awr_session_list", {}, CALLER);
    expect(list.scope).toBe("current client");
  });

  it("shows waiting_user while a question is pending, its successor once resumed, and hands the successor the predecessor's waits", async () => {
    const s = await startSession(h, { work: "W-1", conversation: "conv-1" });
    const get = () => h.runtime.call("awr_session_get", { session: s.session.id }, CALLER);
    expect(await get()).toMatchObject({ continuity_state: "available", resumed_successor: null });
    const w = await openWait(h, s.session.id, { question: "Which API?", digest: "stuck" });
    expect((await get()).continuity_state).toBe("waiting_user");
    await reply(h, w.wait.id, "REST");
    expect((await get()).continuity_state).toBe("available");
    const resumed = await resume(h, s.session.id, { conversation: "conv-2" });
    expect(resumed.predecessor_waits.map((x) => [x.id, x.status, x.reply])).toEqual([
      [w.wait.id, "answered", "REST"],
    ]);
    expect((await get()).resumed_successor).toEqual(resumed.resumed.session);
  });
});
