import {
  createLedgerRuntime,
  LedgerStore,
  openPostgresDatabase,
  openSqliteDatabase,
} from "@awr/awr-ledger";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  CALLER,
  ledgerFailure,
  openHarness,
  openWait,
  type RuntimeHarness,
  startSession,
} from "./fixtures/runtime/harness.js";
import { BACKENDS } from "./helpers/backends.js";

describe.each(BACKENDS)("sessions on %s", (backend) => {
  let h: RuntimeHarness;
  beforeEach(async () => {
    h = await openHarness(backend);
    await h.seed([
      { key: "W-1", status: "ready" },
      { key: "W-2", status: "ready" },
    ]);
  });
  afterEach(() => h.close());

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
    const got = await h.runtime.sessionGet({ conversation: "conv-1" }, CALLER);
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

  it("treats the same conversation under another client as a different binding", async () => {
    const mine = await startSession(h, { work: "W-1", conversation: "conv-1" });
    const theirs = await startSession(h, { work: "W-2", conversation: "conv-1", client: "other" });
    expect(theirs.session.id).not.toBe(mine.session.id);
    const error = await ledgerFailure(h.runtime.sessionGet({ session: theirs.session.id }, CALLER));
    expect(error.code).toBe("NotFound");
  });

  it("refuses a session id and a conversation that disagree", async () => {
    const a = await startSession(h, { work: "W-1", conversation: "conv-1" });
    await startSession(h, { work: "W-2", conversation: "conv-2" });
    const error = await ledgerFailure(
      h.runtime.sessionGet({ session: a.session.id, conversation: "conv-2" }, CALLER),
    );
    expect(error.code).toBe("InvalidInput");
  });

  it("lets one session hold a claim and names the holder to anyone else", async () => {
    const holder = await startSession(h, { work: "W-1", conversation: "conv-1", claim: true });
    expect(holder.claim).toMatchObject({ work: "W-1", status: "active" });
    const other = await startSession(h, { work: "W-1", conversation: "conv-2" });
    const error = await ledgerFailure(
      h.runtime.sessionClaim(
        { session: other.session.id, action: "acquire", expected_revision: await h.revision() },
        CALLER,
      ),
    );
    expect(error.code).toBe("ClaimConflict");
    expect(error.details).toMatchObject({ holder: { session: holder.session.id } });
  });

  it("never rewrites the source status when claiming", async () => {
    const s = await startSession(h, { work: "W-1", conversation: "conv-1", claim: true });
    await h.runtime.sessionClaim(
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

  it("lets a claim with ttl_ms lapse and marks it expired when next touched", async () => {
    const first = await startSession(h, {
      work: "W-1",
      conversation: "conv-1",
      claim: true,
      ttl_ms: 60_000,
    });
    const second = await startSession(h, { work: "W-1", conversation: "conv-2" });
    h.clock.now += 60_001;
    const taken = await h.runtime.sessionClaim(
      { session: second.session.id, action: "acquire", expected_revision: await h.revision() },
      CALLER,
    );
    expect(taken.claim.session).toBe(second.session.id);
    const expired = await h.database.db
      .selectFrom("claims")
      .selectAll()
      .where("id", "=", first.claim?.id ?? "")
      .executeTakeFirstOrThrow();
    expect(expired.status).toBe("expired");
    expect(await eventsOf("claim.expired")).toHaveLength(1);
    expect((await h.runtime.sessionGet({ session: first.session.id }, CALLER)).claims).toEqual([]);
  });

  it("releases a claim only for its holder", async () => {
    const s = await startSession(h, { work: "W-1", conversation: "conv-1", claim: true });
    const other = await startSession(h, { work: "W-1", conversation: "conv-2" });
    const error = await ledgerFailure(
      h.runtime.sessionClaim(
        { session: other.session.id, action: "release", expected_revision: await h.revision() },
        CALLER,
      ),
    );
    expect(error.code).toBe("ClaimConflict");
    const released = await h.runtime.sessionClaim(
      { session: s.session.id, action: "release", expected_revision: await h.revision() },
      CALLER,
    );
    expect(released.claim.status).toBe("released");
    expect(await eventsOf("claim.released")).toHaveLength(1);
  });

  it("ends a session, releasing its claims, and refuses to end it twice", async () => {
    const s = await startSession(h, { work: "W-1", conversation: "conv-1", claim: true });
    const ended = await h.runtime.sessionEnd(
      {
        conversation: "conv-1",
        status: "incomplete",
        summary: "stopped",
        expected_revision: await h.revision(),
      },
      CALLER,
    );
    expect(ended.session).toMatchObject({ status: "incomplete", summary: "stopped" });
    expect(ended.released_claims.map((c) => c.work)).toEqual(["W-1"]);
    const other = await startSession(h, { work: "W-1", conversation: "conv-2", claim: true });
    expect(other.claim?.status).toBe("active");
    const error = await ledgerFailure(
      h.runtime.sessionEnd(
        { session: s.session.id, status: "ended", expected_revision: await h.revision() },
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
    const page1 = await h.runtime.sessionList({ limit: 2 }, CALLER);
    expect(page1.sessions.map((s) => s.id)).toEqual([c.session.id, b.session.id]);
    expect(page1.next_before_revision).toBe(b.session.start_revision);
    const page2 = await h.runtime.sessionList(
      { limit: 2, before_revision: page1.next_before_revision ?? 0 },
      CALLER,
    );
    expect(page2.sessions.map((s) => s.id)).toEqual([a.session.id]);
    expect(page2.next_before_revision).toBeNull();
  });

  it("records checkpoints only on active sessions", async () => {
    const s = await startSession(h, { work: "W-1", conversation: "conv-1" });
    const cp = await h.runtime.sessionCheckpoint(
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
    expect((await h.runtime.sessionGet({ session: s.session.id }, CALLER)).checkpoint?.id).toBe(
      cp.checkpoint.id,
    );
    await h.runtime.sessionEnd(
      { session: s.session.id, status: "ended", expected_revision: await h.revision() },
      CALLER,
    );
    const error = await ledgerFailure(
      h.runtime.sessionCheckpoint(
        { session: s.session.id, digest: "late", expected_revision: await h.revision() },
        CALLER,
      ),
    );
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
      const resume = await ledgerFailure(
        h.runtime.sessionResume(
          { session: s.session.id, expected_revision: await h.revision() },
          CALLER,
        ),
      );
      expect(resume.code).toBe("InvalidTransition");
      expect(resume.details).toMatchObject({ wait: w.wait.id });
      expect(resume.message).toContain(w.wait.id);
    });

    it("lifts the block on reply and changes nothing else", async () => {
      const s = await startSession(h, { work: "W-1", conversation: "conv-1", claim: true });
      const w = await openWait(h, s.session.id, { question: "Which API?", digest: "stuck" });
      const before = await h.runtime.sessionGet({ session: s.session.id }, CALLER);
      const replied = await h.runtime.sessionReply(
        { session: s.session.id, answer: "REST", expected_revision: await h.revision() },
        CALLER,
      );
      expect(replied.wait).toMatchObject({ id: w.wait.id, status: "answered", answer: "REST" });
      const after = await h.runtime.sessionGet({ session: s.session.id }, CALLER);
      expect(after.session).toEqual(before.session);
      expect(after.claims).toEqual(before.claims);
      expect(after.checkpoint).toEqual(before.checkpoint);
      expect(after.wait).toBeNull();
      expect(h.writeBacks).toEqual([]);
      const resumed = await h.runtime.sessionResume(
        { session: s.session.id, expected_revision: await h.revision() },
        CALLER,
      );
      expect(resumed.session.predecessor).toBe(s.session.id);
    });

    it("cancels a wait, and refuses a reply with both or neither of answer and cancel", async () => {
      const s = await startSession(h, { work: "W-1", conversation: "conv-1" });
      await openWait(h, s.session.id, { question: "Q?", digest: "d" });
      const both = await ledgerFailure(
        h.runtime.sessionReply(
          {
            session: s.session.id,
            answer: "a",
            cancel: true,
            expected_revision: await h.revision(),
          },
          CALLER,
        ),
      );
      expect(both.code).toBe("InvalidInput");
      const neither = await ledgerFailure(
        h.runtime.sessionReply(
          { session: s.session.id, expected_revision: await h.revision() },
          CALLER,
        ),
      );
      expect(neither.code).toBe("InvalidInput");
      const cancelled = await h.runtime.sessionReply(
        { session: s.session.id, cancel: true, expected_revision: await h.revision() },
        CALLER,
      );
      expect(cancelled.wait.status).toBe("cancelled");
    });
  });

  it("resumes into a successor that inherits the checkpoint and the claim and records its predecessor", async () => {
    const s = await startSession(h, { work: "W-1", conversation: "conv-1", claim: true });
    const cp = await h.runtime.sessionCheckpoint(
      { session: s.session.id, digest: "half done", expected_revision: await h.revision() },
      CALLER,
    );
    const resumed = await h.runtime.sessionResume(
      {
        session: s.session.id,
        new_conversation: "conv-2",
        model: "model-2",
        expected_revision: await h.revision(),
      },
      CALLER,
    );
    expect(resumed.session).toMatchObject({
      predecessor: s.session.id,
      conversation: "conv-2",
      model: "model-2",
      agent: "agent-a",
      last_checkpoint: cp.checkpoint.id,
      work: "W-1",
    });
    expect(resumed.predecessor).toMatchObject({
      status: "interrupted",
      successor: resumed.session.id,
    });
    expect(resumed.claims.map((c) => [c.work, c.session])).toEqual([["W-1", resumed.session.id]]);
    const successor = await h.runtime.sessionGet({ conversation: "conv-2" }, CALLER);
    expect(successor.checkpoint?.digest).toBe("half done");
    expect(successor.claims).toHaveLength(1);
    expect((await h.runtime.sessionGet({ session: s.session.id }, CALLER)).claims).toEqual([]);
    const twice = await ledgerFailure(
      h.runtime.sessionResume(
        { session: s.session.id, expected_revision: await h.revision() },
        CALLER,
      ),
    );
    expect(twice.code).toBe("InvalidTransition");
  });

  it("keeps sessions across a restart: a new connection sees them", async () => {
    const s = await startSession(h, { work: "W-1", conversation: "conv-1", claim: true });
    const reopened =
      backend === "sqlite"
        ? await openSqliteDatabase(h.database.location)
        : await openPostgresDatabase(h.database.url ?? "", { schema: h.database.schema });
    try {
      const runtime = createLedgerRuntime({
        store: new LedgerStore(reopened.db, backend, h.projectId),
        now: () => h.clock.now,
        writeBack: async () => undefined,
      });
      const got = await runtime.sessionGet({ conversation: "conv-1" }, CALLER);
      expect(got.session).toEqual(s.session);
      expect(got.claims).toHaveLength(1);
    } finally {
      await reopened.close();
    }
  });

  it("rejects a cancelled read with the signal's reason unchanged", async () => {
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(h.runtime.sessionList({}, CALLER, { signal: controller.signal })).rejects.toBe(
      controller.signal.reason,
    );
  });
});
