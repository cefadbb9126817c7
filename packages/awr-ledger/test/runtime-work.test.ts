import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ToolInput } from "@awr/awr-ledger";
import { beforeEach, describe, expect, it } from "vitest";
import { DOMAIN_EVENT_TYPES } from "../src/core/event-types.js";
import {
  CALLER,
  harnessPerCase,
  ledgerFailure,
  ONE_READY,
  openWait,
  reply,
  startSession,
} from "./fixtures/runtime/harness.js";
import { BACKENDS } from "./helpers/backends.js";

type TransitionInput = ToolInput<"awr_work_transition">;
const SHA = "c".repeat(40);
/** A completion mapping at SHA. */
const mapping = (acceptance: { criterion: string; evidence: string[] }[]) => ({
  version: 1 as const,
  source_sha: SHA,
  acceptance,
});

const ACCEPTANCE = [
  { id: "ac-1", text: "totals are right", level: "locally_verified" },
  { id: "ac-2", text: "it ships", level: "released" },
];

describe.each(BACKENDS)("work transitions on %s", (backend) => {
  const h = harnessPerCase(backend, []);
  beforeEach(async () => {
    await h.seed([
      { key: "DONE", status: "completed" },
      { key: "OPEN-DEP", status: "in_progress" },
      {
        key: "W-1",
        status: "ready",
        acceptance: ACCEPTANCE,
        depends_on: [{ key: "DONE", required: true }],
      },
      { key: "W-DEP", status: "ready", depends_on: [{ key: "OPEN-DEP", required: true }] },
      { key: "W-OPT", status: "ready", depends_on: [{ key: "OPEN-DEP", required: false }] },
      {
        key: "W-BLOCKED",
        status: "blocked",
        blocker: "vendor",
        depends_on: [{ key: "OPEN-DEP", required: true }],
      },
    ]);
  });

  /** A transition by `session` (a throwaway session of its own when none is given). */
  const transition = async (
    input: Omit<TransitionInput, "expected_revision" | "reason" | "session"> & {
      reason?: string;
      session?: string;
    },
  ) => {
    const session =
      input.session ??
      (await startSession(h, { work: input.work, conversation: `any-${Math.random()}` })).session
        .id;
    return h.runtime.call(
      "awr_work_transition",
      { reason: "test", ...input, session, expected_revision: await h.revision() },
      CALLER,
    );
  };
  const status = async (key: string) =>
    (
      await h.database.db
        .selectFrom("entities")
        .select("status")
        .where("key", "=", key)
        .executeTakeFirstOrThrow()
    ).status;
  const evidence = async (key: string, level: string) =>
    h.runtime.call(
      "awr_evidence_record",
      {
        external_key: key,
        evidence_type: "test-run",
        level: level as never,
        summary: `${key} passed`,
        locator: "https://ci.example/1",
        scope: ["W-1"],
        source_sha: SHA,
        expected_revision: await h.revision(),
      },
      CALLER,
    );

  it("progresses claimed work, writing the status back to the source", async () => {
    const s = await startSession(h, { work: "W-1", conversation: "c", claim: true });
    const result = await transition({
      work: "W-1",
      action: "progress",
      session: s.session.id,
      next_action: "write code",
    });
    expect(result.work).toMatchObject({
      previous_status: "ready",
      status: "in_progress",
      next_action: "write code",
    });
    expect(h.writeBacks).toEqual([
      { work: "W-1", changes: { status: "in_progress", next_action: "write code" } },
    ]);
    expect(await status("W-1")).toBe("in_progress");
    expect(result.event.event_type).toBe(DOMAIN_EVENT_TYPES.workProgressed);
    expect(result.proposal).toMatchObject({ status: "applied", from: "ready", to: "in_progress" });
  });

  it("needs the session's own active claim for progress, block and complete", async () => {
    const s = await startSession(h, { work: "W-1", conversation: "c" });
    const unclaimed = await ledgerFailure(
      transition({ work: "W-1", action: "progress", session: s.session.id }),
    );
    expect(unclaimed.code).toBe("ClaimConflict");
    const holder = await startSession(h, { work: "W-1", conversation: "holder", claim: true });
    const foreign = await ledgerFailure(
      transition({ work: "W-1", action: "progress", session: s.session.id }),
    );
    expect(foreign.code).toBe("ClaimConflict");
    expect(foreign.details).toMatchObject({ holder: { session: holder.session.id } });
    await transition({ work: "W-1", action: "progress", session: holder.session.id });
    const block = await ledgerFailure(
      transition({ work: "W-1", action: "block", session: s.session.id, blocker: "x" }),
    );
    expect(block.code).toBe("ClaimConflict");
    const complete = await ledgerFailure(
      transition({
        work: "W-1",
        action: "complete",
        session: s.session.id,
        completion: mapping([]),
      }),
    );
    expect(complete.code).toBe("ClaimConflict");
    const noSession = await ledgerFailure(
      h.runtime.call(
        "awr_work_transition",
        {
          work: "W-1",
          action: "block",
          blocker: "x",
          reason: "r",
          expected_revision: await h.revision(),
        } as TransitionInput,
        CALLER,
      ),
    );
    expect(noSession.code).toBe("InvalidInput");
    expect(noSession.message).toContain("session or conversation");
    expect(await status("W-1")).toBe("in_progress");
    expect(h.writeBacks).toHaveLength(1);
  });

  it("does not count an expired claim as the session's claim", async () => {
    const s = await startSession(h, { work: "W-1", conversation: "c", claim: true, ttl_ms: 1000 });
    h.clock.now += 1001;
    const error = await ledgerFailure(
      transition({ work: "W-1", action: "progress", session: s.session.id }),
    );
    expect(error.code).toBe("ClaimConflict");
  });

  it("settles a lapsed claim once: cancel marks it expired and releases nothing", async () => {
    const s = await startSession(h, { work: "W-1", conversation: "c", claim: true, ttl_ms: 1000 });
    h.clock.now += 1000;
    const result = await transition({
      work: "W-1",
      action: "cancel",
      session: s.session.id,
      request_id: "cancel-lapsed",
    });
    expect(result.event.payload["released_claim_ids"]).toEqual([]);
    const receipts = (
      await h.runtime.call("awr_operation_get", { request_id: "cancel-lapsed" }, CALLER)
    ).domain_receipts.map((e) => e.event_type);
    expect(receipts).toEqual(["claim.expired", "work.cancelled"]);
  });

  it("blocks progress, unblock and complete on unfinished required dependencies, not on optional ones", async () => {
    const s = await startSession(h, { work: "W-DEP", conversation: "c", claim: true });
    const progress = await ledgerFailure(
      transition({ work: "W-DEP", action: "progress", session: s.session.id }),
    );
    expect(progress.code).toBe("DependencyBlocked");
    expect(progress.details).toMatchObject({
      dependencies: [{ work: "OPEN-DEP", status: "in_progress" }],
    });
    const unblock = await ledgerFailure(transition({ work: "W-BLOCKED", action: "unblock" }));
    expect(unblock.code).toBe("DependencyBlocked");
    const o = await startSession(h, { work: "W-OPT", conversation: "o", claim: true });
    await transition({ work: "W-OPT", action: "progress", session: o.session.id });
    await h.database.db
      .updateTable("entities")
      .set({ status: "in_progress" })
      .where("key", "=", "W-DEP")
      .execute();
    const complete = await ledgerFailure(
      transition({
        work: "W-DEP",
        action: "complete",
        session: s.session.id,
        completion: mapping([]),
      }),
    );
    expect(complete.code).toBe("DependencyBlocked");
  });

  it.each([
    ["complete", "ready"],
    ["block", "ready"],
    ["unblock", "ready"],
    ["reopen", "ready"],
    ["cancel", "completed"],
  ] as const)("refuses %s from %s as InvalidTransition", async (action, from) => {
    const key = from === "completed" ? "DONE" : "W-OPT";
    const s = await startSession(h, { work: key, conversation: "c", claim: from !== "completed" });
    const error = await ledgerFailure(
      transition({
        work: key,
        action,
        session: s.session.id,
        ...(action === "block" ? { blocker: "b" } : {}),
        ...(action === "complete" ? { completion: mapping([]) } : {}),
      }),
    );
    expect(error.code).toBe("InvalidTransition");
    expect(h.writeBacks).toEqual([]);
  });

  it("blocks with a blocker, unblocks clearing it, cancels and reopens to planned", async () => {
    const s = await startSession(h, { work: "W-OPT", conversation: "c", claim: true });
    await transition({ work: "W-OPT", action: "progress", session: s.session.id });
    const missing = await ledgerFailure(
      transition({ work: "W-OPT", action: "block", session: s.session.id }),
    );
    expect(missing.code).toBe("InvalidInput");
    await transition({
      work: "W-OPT",
      action: "block",
      session: s.session.id,
      blocker: "waiting on API keys",
    });
    await transition({ work: "W-OPT", action: "unblock" });
    await transition({ work: "W-OPT", action: "cancel", reason: "descoped" });
    await transition({ work: "W-OPT", action: "reopen" });
    expect(h.writeBacks.map((w) => w.changes)).toEqual([
      { status: "in_progress" },
      { status: "blocked", blocker: "waiting on API keys" },
      { status: "in_progress", blocker: null },
      { status: "cancelled" },
      { status: "planned" },
    ]);
    expect(await status("W-OPT")).toBe("planned");
  });

  describe("completion", () => {
    let session: string;
    beforeEach(async () => {
      session = (await startSession(h, { work: "W-1", conversation: "c", claim: true })).session.id;
      await transition({ work: "W-1", action: "progress", session });
    });

    it("names every criterion without evidence at the required level (EvidenceMissing)", async () => {
      await evidence("ev-local", "locally_verified");
      await evidence("ev-impl", "implemented");
      const error = await ledgerFailure(
        transition({
          work: "W-1",
          action: "complete",
          session,
          completion: mapping([
            { criterion: "ac-1", evidence: ["ev-local"] },
            { criterion: "it ships", evidence: ["ev-impl"] },
          ]),
        }),
      );
      expect(error.code).toBe("EvidenceMissing");
      expect(error.details).toMatchObject({ criteria: [{ id: "ac-2", level: "released" }] });
      expect(await status("W-1")).toBe("in_progress");
    });

    it("answers NotFound for unknown evidence keys and InvalidInput for unknown criteria", async () => {
      const unknownKey = await ledgerFailure(
        transition({
          work: "W-1",
          action: "complete",
          session,
          completion: mapping([{ criterion: "ac-1", evidence: ["nope"] }]),
        }),
      );
      expect(unknownKey.code).toBe("NotFound");
      expect(unknownKey.details).toMatchObject({ evidence: ["nope"] });
      const unknownCriterion = await ledgerFailure(
        transition({
          work: "W-1",
          action: "complete",
          session,
          completion: mapping([{ criterion: "ac-9", evidence: [] }]),
        }),
      );
      expect(unknownCriterion.code).toBe("InvalidInput");
    });

    it("completes with every criterion covered and releases the session's claim", async () => {
      await evidence("ev-local", "locally_verified");
      await evidence("ev-rel", "released");
      const result = await transition({
        work: "W-1",
        action: "complete",
        session,
        completion: mapping([
          { criterion: "ac-1", evidence: ["ev-local"] },
          { criterion: "ac-2", evidence: ["ev-rel"] },
        ]),
        request_id: "complete-1",
      });
      expect(result.work.status).toBe("completed");
      expect(result.event.payload["released_claim_ids"]).toHaveLength(1);
      expect((await h.runtime.call("awr_session_get", { session }, CALLER)).claims).toEqual([]);
      const receipts = (
        await h.runtime.call("awr_operation_get", { request_id: "complete-1" }, CALLER)
      ).domain_receipts.map((e) => e.event_type);
      expect(receipts).toEqual(["claim.released", "work.completed"]);
    });

    it("refuses evidence bound to another source_sha, and a minimum_level above what it proves", async () => {
      await evidence("ev-local", "locally_verified");
      await evidence("ev-rel", "released");
      const acceptance = [
        { criterion: "ac-1", evidence: ["ev-local"] },
        { criterion: "ac-2", evidence: ["ev-rel"] },
      ];
      const elsewhere = await ledgerFailure(
        transition({
          work: "W-1",
          action: "complete",
          session,
          completion: { ...mapping(acceptance), source_sha: "d".repeat(40) },
        }),
      );
      expect(elsewhere.code).toBe("EvidenceMissing");
      expect(elsewhere.message).toContain("bound to source_sha");
      const higher = await ledgerFailure(
        transition({
          work: "W-1",
          action: "complete",
          session,
          completion: { ...mapping(acceptance), minimum_level: "released" },
        }),
      );
      expect(higher.code).toBe("EvidenceMissing");
      expect(higher.details).toMatchObject({ criteria: [{ id: "ac-1", level: "released" }] });
      expect(await status("W-1")).toBe("in_progress");
    });
  });

  it("refuses transitions of a session's work while its wait is pending, naming the wait", async () => {
    const s = await startSession(h, { work: "W-OPT", conversation: "c", claim: true });
    const w = await openWait(h, s.session.id, { question: "Go on?", digest: "d" });
    const own = await ledgerFailure(
      transition({ work: "W-OPT", action: "progress", session: s.session.id }),
    );
    expect(own.code).toBe("InvalidTransition");
    expect(own.details).toMatchObject({ wait: w.wait.id });
    const anyone = await ledgerFailure(transition({ work: "W-OPT", action: "cancel" }));
    expect(anyone.code).toBe("InvalidTransition");
    await reply(h, w.wait.id, "yes");
    await transition({ work: "W-OPT", action: "progress", session: s.session.id });
    expect(await status("W-OPT")).toBe("in_progress");
  });
});

describe.each(BACKENDS)("evidence and free-form events on %s", (backend) => {
  const h = harnessPerCase(backend, ONE_READY);

  it("records evidence with its receipt, refuses the same key again (SourceConflict), and never runs its command", async () => {
    const marker = join(tmpdir(), `awr-never-run-${process.pid}-${Date.now()}`);
    const first = await h.runtime.call(
      "awr_evidence_record",
      {
        external_key: "ev-1",
        evidence_type: "test-run",
        level: "implemented",
        summary: "unit tests",
        locator: "reports/unit.json",
        work: "W-1",
        command: `touch ${marker}`,
        scope: ["src/a.ts"],
        sha256: "A".repeat(64),
        verified_at: 1_700_000_000_000,
        expected_revision: 0,
      },
      CALLER,
    );
    expect(first).toMatchObject({
      validation_basis: "caller_supplied_bindings",
      evidence: {
        work: "W-1",
        command: `touch ${marker}`,
        scope: ["src/a.ts"],
        sha256: "a".repeat(64),
        verified_at: 1_700_000_000_000,
      },
    });
    const receipt = await h.database.db
      .selectFrom("events")
      .select(["id", "type"])
      .where("type", "=", "evidence.recorded")
      .execute();
    expect(receipt).toEqual([{ id: first.event_id, type: "evidence.recorded" }]);
    expect(existsSync(marker)).toBe(false);
    const before = await h.revision();
    const second = await ledgerFailure(
      h.runtime.call(
        "awr_evidence_record",
        {
          external_key: "ev-1",
          evidence_type: "test-run",
          level: "locally_verified",
          summary: "all tests",
          locator: "reports/all.json",
          scope: ["src"],
          expected_revision: before,
        },
        CALLER,
      ),
    );
    expect(second.code).toBe("SourceConflict");
    expect(second.details).toMatchObject({ external_key: "ev-1", evidence_id: first.evidence.id });
    expect(await h.revision()).toBe(before);
  });

  it.each([
    [{ level: "great" }, "level", "InvalidInput"],
    [{ sha256: "xyz" }, "sha256", "InvalidInput"],
    [{ verified_at: "yesterday" }, "verified_at", "InvalidInput"],
    [{ scope: [] }, "scope", "InvalidInput"],
    [{ locator: undefined }, "locator", "InvalidInput"],
    [{ work: "NOPE" }, "NOPE", "NotFound"],
  ])("refuses evidence with %j", async (patch, named, code) => {
    const error = await ledgerFailure(
      h.runtime.call(
        "awr_evidence_record",
        {
          external_key: "k",
          evidence_type: "t",
          level: "implemented",
          summary: "s",
          locator: "here",
          scope: ["W-1"],
          expected_revision: 0,
          ...patch,
        } as never,
        CALLER,
      ),
    );
    expect(error.code).toBe(code);
    expect(error.message).toContain(named);
    expect(await h.revision()).toBe(0);
  });

  it("refuses exactly the reserved (lifecycle and domain) event types with InvalidInput", async () => {
    const reserved = [
      ...Object.values(DOMAIN_EVENT_TYPES),
      "Work.Completed",
      "checkpoint.fake",
      "source.projected",
      "proposal.applied",
      "branch.created",
      "session.interrupted",
    ];
    for (const event_type of reserved) {
      const error = await ledgerFailure(
        h.runtime.call(
          "awr_event_append",
          { event_type, summary: "x", expected_revision: 0 },
          CALLER,
        ),
      );
      expect([event_type, error.code]).toEqual([event_type, "InvalidInput"]);
    }
    expect(await h.revision()).toBe(0);
    for (const event_type of ["work.observed", "session.note", "claim.discussed", "review:done"]) {
      const appended = await h.runtime.call(
        "awr_event_append",
        { event_type, summary: "free", expected_revision: await h.revision() },
        CALLER,
      );
      expect(appended.event.event_type).toBe(event_type);
    }
  });

  it("appends a free-form event linked to work and session, with only the payload's known fields", async () => {
    const s = await startSession(h, { work: "W-1", conversation: "c" });
    const result = await h.runtime.call(
      "awr_event_append",
      {
        event_type: "build.failed",
        conversation: "c",
        summary: "red",
        importance: "high",
        payload: { exit_code: 7, stderr: "boom" },
        expected_revision: await h.revision(),
      },
      CALLER,
    );
    expect(result.event).toMatchObject({
      event_type: "build.failed",
      importance: "high",
      work: "W-1",
      session_id: s.session.id,
      payload: { exit_code: 7, stderr: "boom" },
    });
    expect(result.event.id).toHaveLength(26);
    expect(typeof result.event.created_at).toBe("number");
    for (const payload of [{ awr_terminal: {} }, { job: 7 }, { count: -1 }]) {
      const forged = await ledgerFailure(
        h.runtime.call(
          "awr_event_append",
          {
            event_type: "build.failed",
            summary: "x",
            payload: payload as never,
            expected_revision: await h.revision(),
          },
          CALLER,
        ),
      );
      expect(forged.code).toBe("InvalidInput");
    }
  });
});
