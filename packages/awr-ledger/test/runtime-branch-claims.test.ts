import { beforeEach, describe, expect, it } from "vitest";
import {
  CALLER,
  createBranch,
  harnessPerCase,
  ledgerFailure,
  ONE_READY,
  startSession,
} from "./fixtures/runtime/harness.js";
import { BACKENDS } from "./helpers/backends.js";

// One effective claim per work item within a branch, independent claims across branches, and
// reads that count only the selected branch's claims (docs/design/work-branches.md R1, R4).
describe.each(BACKENDS)("claims per branch on %s", (backend) => {
  const h = harnessPerCase(backend, ONE_READY);
  let spike: string;
  beforeEach(async () => {
    spike = await createBranch(h);
  });

  it("lets each branch hold its own claim on the same work item", async () => {
    const onMain = await startSession(h, { work: "W-1", conversation: "ana", claim: true });
    const onSpike = await startSession(h, {
      work: "W-1",
      conversation: "lee",
      claim: true,
      branch: "spike",
    });
    expect(onMain.claim?.branch_id).toBeNull();
    expect(onSpike.session.branch_id).toBe(spike);
    expect(onSpike.claim).toMatchObject({ branch_id: spike, status: "active" });
    const contender = await ledgerFailure(
      startSession(h, { work: "W-1", conversation: "kim", claim: true, branch: spike }),
    );
    expect(contender.code).toBe("ClaimConflict");
    const mainWork = await h.runtime.call("awr_work_get", { work: "W-1" }, CALLER);
    const spikeWork = await h.runtime.call("awr_work_get", { work: "W-1", branch: spike }, CALLER);
    expect(mainWork.work.active_claims.map((c) => c.session_id)).toEqual([onMain.session.id]);
    expect(spikeWork.work.active_claims.map((c) => c.session_id)).toEqual([onSpike.session.id]);
    const events = await h.database.db
      .selectFrom("events")
      .select(["type", "branch"])
      .where("type", "in", ["session.started", "work.claimed"])
      .orderBy("seq")
      .execute();
    expect(events).toEqual([
      { type: "work.claimed", branch: null },
      { type: "session.started", branch: null },
      { type: "work.claimed", branch: spike },
      { type: "session.started", branch: spike },
    ]);
  });

  it("expires a lapsed claim on acquisition and names it in expired_claim_ids", async () => {
    const first = await startSession(h, {
      work: "W-1",
      conversation: "a",
      claim: true,
      ttl_ms: 1000,
      branch: spike,
    });
    h.clock.now += 5000;
    const second = await startSession(h, {
      work: "W-1",
      conversation: "b",
      claim: true,
      branch: spike,
    });
    const claimed = await h.database.db
      .selectFrom("events")
      .select("payload")
      .where("type", "=", "work.claimed")
      .where("session", "=", second.session.id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(claimed.payload).expired_claim_ids).toEqual([first.claim?.id]);
  });

  it("counts only the selected branch's claims in ready work", async () => {
    await startSession(h, { work: "W-1", conversation: "ana", claim: true });
    const mainReady = await h.runtime.call("awr_work_ready", {}, CALLER);
    const spikeReady = await h.runtime.call("awr_work_ready", { branch: "spike" }, CALLER);
    expect(mainReady).toMatchObject({ branch_id: null, ready_total: 0 });
    expect(spikeReady).toMatchObject({ branch_id: spike, ready_total: 1 });
    await h.runtime.call(
      "awr_branch_switch",
      { branch: "spike", actor: "lee", reason: "r", expected_revision: await h.revision() },
      CALLER,
    );
    expect(await h.runtime.call("awr_work_ready", {}, CALLER)).toMatchObject({
      branch_id: spike,
      ready_total: 1,
    });
    expect(await h.runtime.call("awr_work_ready", { branch: "main" }, CALLER)).toMatchObject({
      branch_id: null,
      ready_total: 0,
    });
  });

  it("judges evidence of another branch historical, never current", async () => {
    const sha = "a".repeat(40);
    await h.runtime.call(
      "awr_evidence_record",
      {
        external_key: "ev-main",
        evidence_type: "test",
        level: "locally_verified",
        summary: "tests ran",
        locator: "ci://1",
        scope: ["W-1"],
        work: "W-1",
        source_sha: sha,
        expected_revision: await h.revision(),
      },
      CALLER,
    );
    const onMain = await h.runtime.call("awr_work_get", { work: "W-1", source_sha: sha }, CALLER);
    const onSpike = await h.runtime.call(
      "awr_work_get",
      { work: "W-1", source_sha: sha, branch: "spike" },
      CALLER,
    );
    expect(onMain.evidence.recorded[0]).toMatchObject({ currency: "current", reasons: [] });
    expect(onSpike.evidence.recorded[0]).toMatchObject({
      currency: "historical",
      reasons: ["evidence belongs to a different branch"],
      branch_id: null,
    });
    expect(onSpike.evidence_currency_basis).toEqual({
      requested_source_sha: sha,
      branch_id: spike,
    });
  });
});
