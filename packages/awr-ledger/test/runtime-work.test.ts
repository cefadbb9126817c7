import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DOMAIN_EVENT_TYPES, type WorkTransitionInput } from "@awr/awr-ledger";
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

const ACCEPTANCE = [
  { id: "ac-1", text: "totals are right", level: "locally_verified" },
  { id: "ac-2", text: "it ships", level: "released" },
];

describe.each(BACKENDS)("work transitions on %s", (backend) => {
  let h: RuntimeHarness;
  beforeEach(async () => {
    h = await openHarness(backend);
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
  afterEach(() => h.close());

  const transition = async (input: Omit<WorkTransitionInput, "expected_revision">) =>
    h.runtime.workTransition(
      { ...input, expected_revision: await h.revision() } as WorkTransitionInput,
      CALLER,
    );
  const status = async (key: string) =>
    (
      await h.database.db
        .selectFrom("entities")
        .select("status")
        .where("key", "=", key)
        .executeTakeFirstOrThrow()
    ).status;
  const evidence = async (key: string, level: string) =>
    h.runtime.evidenceRecord(
      {
        external_key: key,
        evidence_type: "test-run",
        level: level as never,
        summary: `${key} passed`,
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
    expect(result.terminal_event?.type).toBe(DOMAIN_EVENT_TYPES.workProgressed);
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
      transition({ work: "W-1", action: "complete", session: s.session.id, completion: [] }),
    );
    expect(complete.code).toBe("ClaimConflict");
    const noSession = await ledgerFailure(
      transition({ work: "W-1", action: "block", blocker: "x" }),
    );
    expect(noSession.code).toBe("InvalidInput");
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
      transition({ work: "W-DEP", action: "complete", session: s.session.id, completion: [] }),
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
        ...(action === "complete" ? { completion: [] } : {}),
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
          completion: [
            { criterion: "ac-1", evidence: ["ev-local"] },
            { criterion: "it ships", evidence: ["ev-impl"] },
          ],
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
          completion: [{ criterion: "ac-1", evidence: ["nope"] }],
        }),
      );
      expect(unknownKey.code).toBe("NotFound");
      expect(unknownKey.details).toMatchObject({ evidence: ["nope"] });
      const unknownCriterion = await ledgerFailure(
        transition({
          work: "W-1",
          action: "complete",
          session,
          completion: [{ criterion: "ac-9", evidence: [] }],
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
        completion: [
          { criterion: "ac-1", evidence: ["ev-local"] },
          { criterion: "ac-2", evidence: ["ev-rel"] },
        ],
      });
      expect(result.work.status).toBe("completed");
      expect(result.released_claim).toMatchObject({ work: "W-1", status: "released" });
      expect((await h.runtime.sessionGet({ session }, CALLER)).claims).toEqual([]);
      const receipts = (
        await h.runtime.operationGet({ request_id: result.request_id }, CALLER)
      ).receipts.map((e) => e.type);
      expect(receipts).toEqual(["claim.released", "work.completed"]);
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
    await h.runtime.sessionReply(
      { session: s.session.id, answer: "yes", expected_revision: await h.revision() },
      CALLER,
    );
    await transition({ work: "W-OPT", action: "progress", session: s.session.id });
    expect(await status("W-OPT")).toBe("in_progress");
  });
});

describe.each(BACKENDS)("evidence and free-form events on %s", (backend) => {
  let h: RuntimeHarness;
  beforeEach(async () => {
    h = await openHarness(backend);
    await h.seed([{ key: "W-1", status: "ready" }]);
  });
  afterEach(() => h.close());

  it("records evidence, replaces it under the same key, and never runs its command", async () => {
    const marker = join(tmpdir(), `awr-never-run-${process.pid}-${Date.now()}`);
    const first = await h.runtime.evidenceRecord(
      {
        external_key: "ev-1",
        evidence_type: "test-run",
        level: "implemented",
        summary: "unit tests",
        work: "W-1",
        command: `touch ${marker}`,
        scope: ["src/a.ts"],
        sha256: "A".repeat(64),
        expected_revision: 0,
      },
      CALLER,
    );
    expect(first).toMatchObject({
      replaced: false,
      evidence: {
        work: "W-1",
        command: `touch ${marker}`,
        scope: ["src/a.ts"],
        sha256: "a".repeat(64),
      },
    });
    expect(existsSync(marker)).toBe(false);
    const second = await h.runtime.evidenceRecord(
      {
        external_key: "ev-1",
        evidence_type: "test-run",
        level: "locally_verified",
        summary: "all tests",
        expected_revision: first.project_revision,
      },
      CALLER,
    );
    expect(second).toMatchObject({ replaced: true, evidence: { level: "locally_verified" } });
    const events = await h.database.db
      .selectFrom("events")
      .select("type")
      .where("type", "=", "evidence.recorded")
      .execute();
    expect(events).toHaveLength(2);
  });

  it.each([
    [{ level: "great" }, "level"],
    [{ sha256: "xyz" }, "sha256"],
    [{ verified_at: "yesterday" }, "verified_at"],
    [{ work: "NOPE" }, "NOPE"],
  ])("refuses evidence with %j", async (patch, named) => {
    const error = await ledgerFailure(
      h.runtime.evidenceRecord(
        {
          external_key: "k",
          evidence_type: "t",
          level: "implemented",
          summary: "s",
          expected_revision: 0,
          ...patch,
        } as never,
        CALLER,
      ),
    );
    expect(["InvalidInput", "NotFound"]).toContain(error.code);
    expect(error.message).toContain(named);
    expect(await h.revision()).toBe(0);
  });

  it("refuses to append any reserved event type", async () => {
    const reserved = [
      ...Object.values(DOMAIN_EVENT_TYPES),
      "mcp.custom",
      "session.note",
      "work.anything",
      "claim.stolen",
      "checkpoint.fake",
      "evidence.forged",
    ];
    for (const type of reserved) {
      const error = await ledgerFailure(
        h.runtime.eventAppend({ type, expected_revision: 0 }, CALLER),
      );
      expect([type, error.code]).toEqual([type, "RuleViolation"]);
    }
    expect(await h.revision()).toBe(0);
  });

  it("appends a free-form event linked to work and session, keeping awr_ payload keys for the ledger", async () => {
    const s = await startSession(h, { work: "W-1", conversation: "c" });
    const result = await h.runtime.eventAppend(
      {
        type: "build.failed",
        conversation: "c",
        summary: "red",
        payload: { job: 7 },
        expected_revision: await h.revision(),
      },
      CALLER,
    );
    expect(result.event).toMatchObject({
      type: "build.failed",
      work: "W-1",
      session: s.session.id,
      payload: { job: 7 },
    });
    const forged = await ledgerFailure(
      h.runtime.eventAppend(
        {
          type: "build.failed",
          payload: { awr_terminal: {} },
          expected_revision: await h.revision(),
        },
        CALLER,
      ),
    );
    expect(forged.code).toBe("InvalidInput");
  });
});
