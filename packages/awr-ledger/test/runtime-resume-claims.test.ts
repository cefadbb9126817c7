import { describe, expect, it } from "vitest";
import {
  CALLER,
  harnessPerCase,
  ledgerFailure,
  openWait,
  resume as resumeWith,
  startSession,
} from "./fixtures/runtime/harness.js";
import { BACKENDS } from "./helpers/backends.js";

describe.each(BACKENDS)("a resumed session inherits its predecessor's claim on %s", (backend) => {
  const h = harnessPerCase(backend);

  const end = async (session: string, outcome: "ended" | "interrupted" | "incomplete") =>
    h.runtime.call(
      "awr_session_end",
      { session, outcome, expected_revision: await h.revision() },
      CALLER,
    );
  const resume = async (session: string, request_id?: string) =>
    h.runtime.call(
      "awr_session_resume",
      {
        session,
        conversation: `resumed-${session}`,
        agent: "agent-a",
        provider: "prov",
        model: "model-1",
        expected_revision: await h.revision(),
        ...(request_id === undefined ? {} : { request_id }),
      },
      CALLER,
    );
  const activeClaimsOn = (work: string) =>
    h.database.db
      .selectFrom("claims")
      .select(["session", "ttl_ms", "expires_at"])
      .where("work", "=", work)
      .where("status", "=", "active")
      .execute();

  it.each(["ended", "interrupted"] as const)(
    "takes back, for the successor, the claim that ending the predecessor as %s released",
    async (status) => {
      const s = await startSession(h, {
        work: "W-1",
        conversation: "conv-1",
        claim: true,
        ttl_ms: 60_000,
      });
      const ended = await end(s.session.id, status);
      expect(ended.released_claims.map((c) => c.work)).toEqual(["W-1"]);
      h.clock.now += 5_000;

      const resumed = await resume(s.session.id);
      expect(resumed.claims).toHaveLength(1);
      expect(resumed.claims[0]).toMatchObject({
        work: "W-1",
        session_id: resumed.resumed.session.id,
        status: "active",
        ttl_ms: 60_000,
        expires_at: h.clock.now + 60_000,
      });
      const successor = await h.runtime.call(
        "awr_session_get",
        { session: resumed.resumed.session.id },
        CALLER,
      );
      expect(successor.claims.map((c) => c.work)).toEqual(["W-1"]);
      expect(await activeClaimsOn("W-1")).toEqual([
        expect.objectContaining({ session: resumed.resumed.session.id }),
      ]);
      const claimed = await h.database.db
        .selectFrom("events")
        .select(["payload", "session"])
        .where("type", "=", "work.claimed")
        .where("session", "=", resumed.resumed.session.id)
        .execute();
      expect(claimed).toHaveLength(1);
      expect(JSON.parse(claimed[0]?.payload ?? "{}")).toMatchObject({
        inherited_from: ended.released_claims[0]?.id,
        reacquired: true,
      });
    },
  );

  it("refuses with ClaimConflict naming the holder when another session took the work, changing nothing", async () => {
    const s = await startSession(h, { work: "W-1", conversation: "conv-1", claim: true });
    await end(s.session.id, "interrupted");
    const other = await startSession(h, { work: "W-1", conversation: "conv-2", claim: true });
    const before = await h.revision();

    const error = await ledgerFailure(resume(s.session.id, "resume-1"));
    expect(error.code).toBe("ClaimConflict");
    expect(error.details).toMatchObject({
      work: "W-1",
      holder: { session: other.session.id, claim: other.claim?.id },
    });
    expect(error.message).toContain(other.session.id);
    expect(await h.revision()).toBe(before);
    const predecessor = await h.runtime.call("awr_session_get", { session: s.session.id }, CALLER);
    expect(predecessor.session.successor).toBeNull();
    expect(
      (await ledgerFailure(h.runtime.call("awr_operation_get", { request_id: "resume-1" }, CALLER)))
        .code,
    ).toBe("NotFound");
    expect(await activeClaimsOn("W-1")).toEqual([
      expect.objectContaining({ session: other.session.id }),
    ]);

    // Once the other session lets go, the same request succeeds and takes the claim back.
    await h.runtime.call(
      "awr_session_claim",
      { session: other.session.id, action: "release", expected_revision: await h.revision() },
      CALLER,
    );
    const resumed = await resume(s.session.id, "resume-1");
    expect(resumed.claims.map((c) => [c.work, c.session_id])).toEqual([
      ["W-1", resumed.resumed.session.id],
    ]);
  });

  it("transfers a claim the predecessor still holds instead of taking a second one", async () => {
    const s = await startSession(h, { work: "W-1", conversation: "conv-1", claim: true });
    const resumed = await resume(s.session.id);
    expect(resumed.predecessor.status).toBe("interrupted");
    expect(resumed.claims.map((c) => [c.work, c.session_id])).toEqual([
      ["W-1", resumed.resumed.session.id],
    ]);
    expect(await activeClaimsOn("W-1")).toEqual([
      expect.objectContaining({ session: resumed.resumed.session.id }),
    ]);
    const old = await h.database.db
      .selectFrom("claims")
      .select("status")
      .where("session", "=", s.session.id)
      .execute();
    expect(old).toEqual([{ status: "released" }]);
  });

  it("does not take back a claim released on purpose, one that expired, or one on work closed since", async () => {
    const released = await startSession(h, { work: "W-1", conversation: "a", claim: true });
    await h.runtime.call(
      "awr_session_claim",
      { session: released.session.id, action: "release", expected_revision: await h.revision() },
      CALLER,
    );
    await end(released.session.id, "ended");
    expect((await resume(released.session.id)).claims).toEqual([]);

    const lapsed = await startSession(h, {
      work: "W-2",
      conversation: "b",
      claim: true,
      ttl_ms: 1_000,
    });
    h.clock.now += 2_000;
    await end(lapsed.session.id, "interrupted");
    expect((await resume(lapsed.session.id)).claims).toEqual([]);

    const closed = await startSession(h, { work: "W-2", conversation: "c", claim: true });
    await end(closed.session.id, "incomplete");
    const canceller = await startSession(h, { work: "W-2", conversation: "d" });
    await h.runtime.call(
      "awr_work_transition",
      {
        work: "W-2",
        action: "cancel",
        session: canceller.session.id,
        reason: "dropped",
        expected_revision: await h.revision(),
      },
      CALLER,
    );
    expect((await resume(closed.session.id)).claims).toEqual([]);
    expect(await activeClaimsOn("W-2")).toEqual([]);
  });

  it("still refuses to resume while a wait is pending, whatever the claim", async () => {
    const s = await startSession(h, { work: "W-1", conversation: "conv-1", claim: true });
    const w = await openWait(h, s.session.id, { question: "Q?", digest: "d" });
    await end(s.session.id, "interrupted");
    const error = await ledgerFailure(resume(s.session.id));
    expect(error.code).toBe("InvalidTransition");
    expect(error.details).toMatchObject({ wait: w.wait.id });
    expect(await activeClaimsOn("W-1")).toEqual([]);
  });

  describe("claim: inherit | acquire | none", () => {
    it("none releases the predecessor's claim and gives the successor none", async () => {
      const s = await startSession(h, { work: "W-1", conversation: "conv-1", claim: true });
      const resumed = await resumeWith(h, s.session.id, { conversation: "n", claim: "none" });
      expect(resumed.resumed.claim).toBeNull();
      expect(resumed.claims).toEqual([]);
      expect(await activeClaimsOn("W-1")).toEqual([]);
    });

    it("acquire claims the work anew with ttl_ms, and is ClaimConflict while another holds it", async () => {
      const s = await startSession(h, { work: "W-1", conversation: "conv-1" });
      const other = await startSession(h, { work: "W-1", conversation: "other", claim: true });
      const refused = await ledgerFailure(
        resumeWith(h, s.session.id, { conversation: "a", claim: "acquire", ttl_ms: 5_000 }),
      );
      expect(refused.code).toBe("ClaimConflict");
      expect(refused.details).toMatchObject({ holder: { session: other.session.id } });
      await h.runtime.call(
        "awr_session_claim",
        { session: other.session.id, action: "release", expected_revision: await h.revision() },
        CALLER,
      );
      const resumed = await resumeWith(h, s.session.id, {
        conversation: "a",
        claim: "acquire",
        ttl_ms: 5_000,
      });
      expect(resumed.resumed.claim).toMatchObject({
        work: "W-1",
        session_id: resumed.resumed.session.id,
        ttl_ms: 5_000,
        expires_at: h.clock.now + 5_000,
      });
    });

    it("takes ttl_ms only with acquire", async () => {
      const s = await startSession(h, { work: "W-1", conversation: "conv-1", claim: true });
      const error = await ledgerFailure(resumeWith(h, s.session.id, { ttl_ms: 10 }));
      expect(error.code).toBe("InvalidInput");
      expect(error.details).toMatchObject({ field: "ttl_ms" });
    });
  });
});
