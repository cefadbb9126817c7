import { createLedgerRuntime, LedgerStore } from "@awr/awr-ledger/testing";
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
import { BACKENDS, reopenDatabase } from "./helpers/backends.js";

describe.each(BACKENDS)("sessions on %s", (backend) => {
  const h = harnessPerCase(backend);

  const eventsOf = async (type: string) =>
    h.database.db
      .selectFrom("events")
      .selectAll()
      .where("type", "=", type)
      .orderBy("seq")
      .execute();

  it("binds a conversation to a new active session and finds it by that conversation", async () => {
    const started = await startSession(h, { work: "W-1", conversation: "conv-1" });
    expect(started).toMatchObject({
      binding_reused: false,
      claim: null,
      session: { status: "active", work: "W-1" },
    });
    const got = await h.runtime.call("awr_session_get", { conversation: "conv-1" }, CALLER);
    expect(got.session.id).toBe(started.session.id);
    expect(await eventsOf("session.started")).toHaveLength(1);
  });

  it("reuses the same binding on the same work without spending a revision", async () => {
    const first = await startSession(h, { work: "W-1", conversation: "conv-1" });
    const before = await h.revision();
    const again = await startSession(h, { work: "W-1", conversation: "conv-1" });
    expect(again).toMatchObject({ binding_reused: true, session: { id: first.session.id } });
    expect(await h.revision()).toBe(before);
    expect(again.project_revision).toBe(before);
  });

  it("refuses a conversation already bound to other work as SourceConflict", async () => {
    await startSession(h, { work: "W-1", conversation: "conv-1" });
    const before = await h.revision();
    const error = await ledgerFailure(startSession(h, { work: "W-2", conversation: "conv-1" }));
    expect(error.code).toBe("SourceConflict");
    expect(await h.revision()).toBe(before);
  });

  it("treats the same conversation under another client as a different binding, and its session as off limits", async () => {
    const mine = await startSession(h, { work: "W-1", conversation: "conv-1" });
    const theirs = await startSession(h, { work: "W-2", conversation: "conv-1", client: "other" });
    expect(theirs.session.id).not.toBe(mine.session.id);
    const error = await ledgerFailure(
      h.runtime.call("awr_session_get", { session: theirs.session.id }, CALLER),
    );
    expect(error.code).toBe("RuleViolation");
    expect(error.message).not.toContain("W-2");
    const end = await ledgerFailure(
      h.runtime.call(
        "awr_session_end",
        { session: theirs.session.id, outcome: "ended", expected_revision: await h.revision() },
        CALLER,
      ),
    );
    expect(end.code).toBe("RuleViolation");
  });

  it("refuses a session of yours given with a conversation bound to another session as RuleViolation", async () => {
    const a = await startSession(h, { work: "W-1", conversation: "conv-1" });
    await startSession(h, { work: "W-2", conversation: "conv-2" });
    const error = await ledgerFailure(
      h.runtime.call("awr_session_get", { session: a.session.id, conversation: "conv-2" }, CALLER),
    );
    expect(error.code).toBe("RuleViolation");
    expect(error.details).toEqual({ session: a.session.id, conversation: "conv-2" });
  });

  it("lets one session hold a claim and names the holder to anyone else", async () => {
    const holder = await startSession(h, { work: "W-1", conversation: "conv-1", claim: true });
    expect(holder.claim).toMatchObject({ work: "W-1", status: "active" });
    const other = await startSession(h, { work: "W-1", conversation: "conv-2" });
    const error = await ledgerFailure(
      h.runtime.call(
        "awr_session_claim",
        { session: other.session.id, action: "acquire", expected_revision: await h.revision() },
        CALLER,
      ),
    );
    expect(error.code).toBe("ClaimConflict");
    expect(error.details).toMatchObject({ holder: { session: holder.session.id } });
  });

  it("never rewrites the source status when claiming", async () => {
    const s = await startSession(h, { work: "W-1", conversation: "conv-1", claim: true });
    await h.runtime.call(
      "awr_session_claim",
      {
        session: s.session.id,
        action: "acquire",
        ttl_ms: 1000,
        expected_revision: await h.revision(),
      },
      CALLER,
    );
    expect(h.writeBacks).toEqual([]);
    const row = await h.database.db
      .selectFrom("entities")
      .select("status")
      .where("key", "=", "W-1")
      .executeTakeFirstOrThrow();
    expect(row.status).toBe("ready");
  });

  it("lets a claim with ttl_ms lapse, shows it expired at once and records claim.expired once", async () => {
    const first = await startSession(h, {
      work: "W-1",
      conversation: "conv-1",
      claim: true,
      ttl_ms: 60_000,
    });
    const second = await startSession(h, { work: "W-1", conversation: "conv-2" });
    h.clock.now += 60_001;
    const lapsed = await h.runtime.call("awr_session_get", { session: first.session.id }, CALLER);
    expect(lapsed.claims.map((c) => [c.id, c.status])).toEqual([[first.claim?.id, "expired"]]);
    expect(await eventsOf("claim.expired")).toHaveLength(0);
    const taken = await h.runtime.call(
      "awr_session_claim",
      { session: second.session.id, action: "acquire", expected_revision: await h.revision() },
      CALLER,
    );
    expect(taken.claim.session_id).toBe(second.session.id);
    await h.runtime.call(
      "awr_session_claim",
      { session: second.session.id, action: "acquire", expected_revision: await h.revision() },
      CALLER,
    );
    const expired = await h.database.db
      .selectFrom("claims")
      .selectAll()
      .where("id", "=", first.claim?.id ?? "")
      .executeTakeFirstOrThrow();
    expect(expired.status).toBe("expired");
    expect(await eventsOf("claim.expired")).toHaveLength(1);
    const after = await h.runtime.call("awr_session_get", { session: first.session.id }, CALLER);
    expect(after.claims.map((c) => c.status)).toEqual(["expired"]);
  });

  it("releases a claim only for its holder", async () => {
    const s = await startSession(h, { work: "W-1", conversation: "conv-1", claim: true });
    const other = await startSession(h, { work: "W-1", conversation: "conv-2" });
    const error = await ledgerFailure(
      h.runtime.call(
        "awr_session_claim",
        { session: other.session.id, action: "release", expected_revision: await h.revision() },
        CALLER,
      ),
    );
    expect(error.code).toBe("ClaimConflict");
    const byId = await ledgerFailure(
      h.runtime.call(
        "awr_session_claim",
        {
          session: other.session.id,
          action: "release",
          claim: s.claim?.id ?? "",
          expected_revision: await h.revision(),
        },
        CALLER,
      ),
    );
    expect(byId.code).toBe("ClaimConflict");
    await startSession(h, { work: "W-2", conversation: "conv-o", client: "other" });
    const theirs = await ledgerFailure(
      h.runtime.call(
        "awr_session_claim",
        {
          conversation: "conv-o",
          action: "release",
          claim: s.claim?.id ?? "",
          expected_revision: await h.revision(),
        },
        { client: "other" },
      ),
    );
    expect(theirs.code).toBe("RuleViolation");
    const released = await h.runtime.call(
      "awr_session_claim",
      {
        session: s.session.id,
        action: "release",
        claim: s.claim?.id ?? "",
        expected_revision: await h.revision(),
      },
      CALLER,
    );
    expect(released.claim.status).toBe("released");
    expect(await eventsOf("claim.released")).toHaveLength(1);
  });

  it("ends a session, releasing its claims, and refuses to end it twice", async () => {
    const s = await startSession(h, { work: "W-1", conversation: "conv-1", claim: true });
    const ended = await h.runtime.call(
      "awr_session_end",
      { conversation: "conv-1", outcome: "incomplete", expected_revision: await h.revision() },
      CALLER,
    );
    expect(ended.session).toMatchObject({ status: "incomplete" });
    expect(ended.released_claims.map((c) => c.work)).toEqual(["W-1"]);
    const other = await startSession(h, { work: "W-1", conversation: "conv-2", claim: true });
    expect(other.claim?.status).toBe("active");
    const error = await ledgerFailure(
      h.runtime.call(
        "awr_session_end",
        { session: s.session.id, outcome: "ended", expected_revision: await h.revision() },
        CALLER,
      ),
    );
    expect(error.code).toBe("InvalidTransition");
  });

  it("lists this client's sessions newest first, paged by before_revision", async () => {
    const a = await startSession(h, { work: "W-1", conversation: "c-a" });
    const b = await startSession(h, { work: "W-2", conversation: "c-b" });
    const c = await startSession(h, { work: "W-1", conversation: "c-c" });
    await startSession(h, { work: "W-1", conversation: "c-x", client: "other" });
    const page1 = await h.runtime.call("awr_session_list", { limit: 2 }, CALLER);
    expect(page1.sessions.map((s) => s.id)).toEqual([c.session.id, b.session.id]);
    expect(page1.next_before_revision).toBe(b.session.start_revision);
    const page2 = await h.runtime.call(
      "awr_session_list",
      { limit: 2, before_revision: page1.next_before_revision ?? 0 },
      CALLER,
    );
    expect(page2.sessions.map((s) => s.id)).toEqual([a.session.id]);
    expect(page2.next_before_revision).toBeNull();
  });

  it("records checkpoints only on active sessions", async () => {
    const s = await startSession(h, { work: "W-1", conversation: "conv-1" });
    const cp = await h.runtime.call(
      "awr_session_checkpoint",
      {
        session: s.session.id,
        digest: "did X",
        next_action: "do Y",
        open_loops: ["Z"],
        changed_entities: ["W-1"],
        context_hash: "h1",
        expected_revision: await h.revision(),
      },
      CALLER,
    );
    expect(cp.checkpoint).toMatchObject({
      digest: "did X",
      next_action: "do Y",
      open_loops: ["Z"],
      changed_entities: ["W-1"],
      context_hash: "h1",
    });
    expect(
      (await h.runtime.call("awr_session_get", { session: s.session.id }, CALLER)).checkpoint?.id,
    ).toBe(cp.checkpoint.id);
    await h.runtime.call(
      "awr_session_end",
      { session: s.session.id, outcome: "ended", expected_revision: await h.revision() },
      CALLER,
    );
    const error = await ledgerFailure(checkpoint(h, s.session.id, "late"));
    expect(error.code).toBe("InvalidTransition");
  });

  describe("waits", () => {
    it("allows one pending question per session and blocks resume naming the wait", async () => {
      const s = await startSession(h, { work: "W-1", conversation: "conv-1" });
      const w = await openWait(h, s.session.id, { question: "Which API?", digest: "stuck" });
      expect(w.wait.status).toBe("waiting_user");
      expect(w.checkpoint.digest).toBe("stuck");
      const second = await ledgerFailure(
        openWait(h, s.session.id, { question: "Again?", digest: "d" }),
      );
      expect(second.code).toBe("InvalidTransition");
      const refused = await ledgerFailure(resume(h, s.session.id));
      expect(refused.code).toBe("InvalidTransition");
      expect(refused.details).toMatchObject({ wait: w.wait.id });
      expect(refused.message).toContain(w.wait.id);
    });

    it("lifts the block on reply and changes nothing else", async () => {
      const s = await startSession(h, { work: "W-1", conversation: "conv-1", claim: true });
      const w = await openWait(h, s.session.id, { question: "Which API?", digest: "stuck" });
      const before = await h.runtime.call("awr_session_get", { session: s.session.id }, CALLER);
      const replied = await reply(h, w.wait.id, "REST");
      expect(replied.wait).toMatchObject({ id: w.wait.id, status: "answered", reply: "REST" });
      expect(replied.event_id).toHaveLength(26);
      const after = await h.runtime.call("awr_session_get", { session: s.session.id }, CALLER);
      expect(after.session).toEqual(before.session);
      expect(after.claims).toEqual(before.claims);
      expect(after.checkpoint).toEqual(before.checkpoint);
      expect(after.wait).toBeNull();
      expect(after.waits.map((x) => [x.question, x.status, x.reply])).toEqual([
        ["Which API?", "answered", "REST"],
      ]);
      expect(h.writeBacks).toEqual([]);
      const resumed = await resume(h, s.session.id);
      expect(resumed.resumed.session.predecessor).toBe(s.session.id);
    });

    it("cancels a wait with a reason, and refuses a reply without text or to a settled wait", async () => {
      const s = await startSession(h, { work: "W-1", conversation: "conv-1" });
      const w = await openWait(h, s.session.id, { question: "Q?", digest: "d" });
      const empty = await ledgerFailure(reply(h, w.wait.id, "   "));
      expect(empty.code).toBe("InvalidInput");
      const cancelled = await reply(h, w.wait.id, "not needed any more", { cancel: true });
      expect(cancelled.wait).toMatchObject({ status: "cancelled", reply: "not needed any more" });
      const again = await ledgerFailure(reply(h, w.wait.id, "late answer"));
      expect(again.code).toBe("InvalidTransition");
      const unknown = await ledgerFailure(reply(h, "01ARZ3NDEKTSV4RRFFQ69G5FAV", "who?"));
      expect(unknown.code).toBe("NotFound");
    });
  });

  it("resumes into a successor that inherits the checkpoint and the claim and records its predecessor", async () => {
    const s = await startSession(h, { work: "W-1", conversation: "conv-1", claim: true });
    const cp = await checkpoint(h, s.session.id, "half done");
    const resumed = await resume(h, s.session.id, { conversation: "conv-2", model: "model-2" });
    expect(resumed.checkpoint_id).toBe(cp.checkpoint.id);
    expect(resumed.from_session_id).toBe(s.session.id);
    expect(resumed.resumed.claim?.work).toBe("W-1");
    expect(resumed.resumed.session).toMatchObject({
      predecessor: s.session.id,
      conversation: "conv-2",
      model: "model-2",
      agent_id: "agent-a",
      last_checkpoint_id: null,
      work: "W-1",
    });
    expect(resumed.predecessor).toMatchObject({
      status: "interrupted",
      successor: resumed.resumed.session.id,
    });
    expect(resumed.claims.map((c) => [c.work, c.session_id])).toEqual([
      ["W-1", resumed.resumed.session.id],
    ]);
    const successor = await h.runtime.call("awr_session_get", { conversation: "conv-2" }, CALLER);
    expect(successor.checkpoint).toBeNull();
    expect(successor.inherited_checkpoint).toMatchObject({
      id: cp.checkpoint.id,
      digest: "half done",
    });
    expect(successor.claims).toHaveLength(1);
    expect(
      (await h.runtime.call("awr_session_get", { session: s.session.id }, CALLER)).claims,
    ).toEqual([]);
    const twice = await ledgerFailure(resume(h, s.session.id, { conversation: "conv-3" }));
    expect(twice.code).toBe("InvalidTransition");
  });

  it("keeps a successor's own checkpoint pointer null, reports the inherited one, and leaves doctor clean", async () => {
    const s = await startSession(h, { work: "W-1", conversation: "conv-1", claim: true });
    const cp = await checkpoint(h, s.session.id, "half done");
    const first = await resume(h, s.session.id, { conversation: "conv-2" });
    expect(first.resumed.session.last_checkpoint_id).toBeNull();
    expect(first.checkpoint_id).toBe(cp.checkpoint.id);
    // A successor that saves nothing hands the same checkpoint on to its own successor.
    const second = await resume(h, first.resumed.session.id, { conversation: "conv-3" });
    expect(second.checkpoint_id).toBe(cp.checkpoint.id);
    expect(second.resumed.session.last_checkpoint_id).toBeNull();
    const got = await h.runtime.call("awr_session_get", { conversation: "conv-3" }, CALLER);
    expect(got.checkpoint).toBeNull();
    expect(got.inherited_checkpoint?.id).toBe(cp.checkpoint.id);
    const report = (await h.runtime.execute("awr_doctor", {}, CALLER)) as {
      ok: boolean;
      findings: { code: string }[];
    };
    // An active session is reported as such (info); no pointer is wrong.
    expect(report.findings.map((f) => f.code)).not.toContain("invalid_checkpoint_pointer");
    expect(report.ok).toBe(true);
    // Its own checkpoint is what its pointer names from then on.
    const own = await checkpoint(h, second.resumed.session.id, "three quarters");
    const after = await h.runtime.call("awr_session_get", { conversation: "conv-3" }, CALLER);
    expect(after.session.last_checkpoint_id).toBe(own.checkpoint.id);
    expect(after.inherited_checkpoint?.id).toBe(cp.checkpoint.id);
  });

  it("keeps sessions across a restart: a new connection sees them", async () => {
    const s = await startSession(h, { work: "W-1", conversation: "conv-1", claim: true });
    const reopened = await reopenDatabase(h.database);
    try {
      const runtime = createLedgerRuntime({
        store: new LedgerStore(reopened.db, reopened.dialect, h.projectId),
        now: () => h.clock.now,
        writeBack: async () => undefined,
      });
      const got = await runtime.call("awr_session_get", { conversation: "conv-1" }, CALLER);
      expect(got.session).toEqual(s.session);
      expect(got.claims).toHaveLength(1);
    } finally {
      await reopened.close();
    }
  });

  it("rejects a cancelled read with the signal's reason unchanged", async () => {
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(
      h.runtime.call("awr_session_list", {}, CALLER, { signal: controller.signal }),
    ).rejects.toBe(controller.signal.reason);
  });
});
