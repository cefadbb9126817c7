import { LIMITS } from "@awr/awr-ledger";
import { ledgerStore } from "@awr/awr-ledger/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ledgerFailure } from "./fixtures/runtime/harness.js";
import { BACKENDS } from "./helpers/backends.js";
import { type OpenProject, openFixtureProject } from "./helpers/projects.js";

/**
 * The error rules of the tool interface, one test each, as the original AWR's tests expect them:
 * the code a host sees for each kind of refusal, and that a refusal changes nothing.
 */

const A = { client: "client-a" };
const B = { client: "client-b" };

/** The original's lifecycle event types and reserved prefixes: only their tools write them. */
const RESERVED = [
  "session.started",
  "session.resumed",
  "session.resumed_from",
  "session.ended",
  "session.handoff_received",
  "session.interrupted",
  "work.claimed",
  "work.handoff",
  "work.progressed",
  "work.blocked",
  "work.unblocked",
  "work.cancelled",
  "work.reopened",
  "work.completed",
  "claim.released",
  "claim.expired",
  "artifact.recorded",
  "evidence.recorded",
  "source.reindexed",
  "checkpoint.created",
  "proposal.applied",
  "branch.created",
  "client.bound",
  "execution.started",
];

describe.each(BACKENDS)("the interface's error rules on %s", (backend) => {
  let p: OpenProject;
  beforeEach(async () => {
    p = await openFixtureProject("basic", backend);
  });
  afterEach(() => p.close());

  const revision = () => ledgerStore(p.ledger).currentRevision();
  const start = async (caller: { client: string }, work: string, conversation: string) =>
    p.ledger.call(
      "awr_session_start",
      {
        work,
        conversation,
        agent: "agent",
        provider: "provider",
        model: "model",
        claim: true,
        expected_revision: await revision(),
      },
      caller,
    );

  it("refuses another client's session, wait and claim as RuleViolation, changing nothing", async () => {
    const mine = await start(A, "PAY-2", "a-1");
    const waited = await p.ledger.call(
      "awr_session_wait",
      {
        session: mine.session.id,
        question: "Which provider?",
        context_hash: "sha256:ctx",
        digest: "waiting",
        next_action: "ask",
        expected_revision: await revision(),
      },
      A,
    );
    const theirs = await start(B, "INV-1", "b-1");
    const before = await revision();
    // Run one after another: a call started early would reject before anything awaits it.
    const attempts = [
      () => p.ledger.call("awr_session_get", { session: mine.session.id }, B),
      () =>
        p.ledger.call(
          "awr_session_end",
          { session: mine.session.id, outcome: "ended", expected_revision: before },
          B,
        ),
      () =>
        p.ledger.call(
          "awr_session_reply",
          { wait: waited.wait.id, reply: "mine now", expected_revision: before },
          B,
        ),
      () =>
        p.ledger.call(
          "awr_session_claim",
          {
            session: theirs.session.id,
            action: "release",
            claim: mine.claim?.id,
            expected_revision: before,
          },
          B,
        ),
    ];
    for (const attempt of attempts) {
      expect((await ledgerFailure(attempt())).code).toBe("RuleViolation");
    }
    expect(await revision()).toBe(before);
  });

  it("refuses evidence under an external_key already recorded as SourceConflict", async () => {
    const evidence = {
      external_key: "E-1",
      evidence_type: "test",
      level: "locally_verified" as const,
      summary: "tests pass",
      locator: "ci://run/1",
      scope: ["PAY-2"],
    };
    const first = await p.ledger.call(
      "awr_evidence_record",
      { ...evidence, expected_revision: await revision() },
      A,
    );
    expect(first.event_id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    const before = await revision();
    const again = await ledgerFailure(
      p.ledger.call("awr_evidence_record", { ...evidence, expected_revision: before }, A),
    );
    expect(again.code).toBe("SourceConflict");
    expect(again.details).toMatchObject({ external_key: "E-1" });
    expect(await revision()).toBe(before);
  });

  it("answers context for an unknown work item as ContextIncomplete with its completeness", async () => {
    const error = await ledgerFailure(p.ledger.call("awr_context_compile", { work: "NOPE-9" }, A));
    expect(error.code).toBe("ContextIncomplete");
    expect(error.result).toMatchObject({
      work_context: null,
      selection_basis: "explicit_work_missing",
      completeness: { complete: false, work_item_found: false, work_item_key: "NOPE-9" },
    });
    expect(error.details).toBeUndefined();
    expect(String(error.result?.["diagnostic_text"])).toContain("CONTEXT INCOMPLETE");
  });

  it("reserves exactly the lifecycle event types, refused as InvalidInput; others are free", async () => {
    const append = async (event_type: string) =>
      p.ledger.call(
        "awr_event_append",
        { event_type, summary: "s", expected_revision: await revision() },
        A,
      );
    for (const type of RESERVED) {
      const before = await revision();
      const error = await ledgerFailure(append(type));
      expect({ type, code: error.code }).toEqual({ type, code: "InvalidInput" });
      expect(await revision()).toBe(before);
    }
    for (const type of ["work.observed", "session.note", "claim.renewed", "test.passed"]) {
      const appended = await append(type);
      expect(appended.event.event_type).toBe(type);
    }
  });

  it("reads the baseline for a null, omitted or main branch; an unknown one is NotFound", async () => {
    for (const branch of [null, undefined, "main"]) {
      const status = await p.ledger.execute("awr_project_status", { branch, view: "full" }, A);
      expect(status["project_revision"]).toBe(await revision());
    }
    const calls: [string, Record<string, unknown>][] = [
      ["awr_project_status", { view: "full" }],
      ["awr_work_ready", {}],
      ["awr_work_get", { work: "PAY-2" }],
      ["awr_context_compile", { work: "PAY-2" }],
      ["awr_event_append", { event_type: "note", summary: "s", expected_revision: 1 }],
    ];
    for (const [tool, args] of calls) {
      const error = await ledgerFailure(p.ledger.execute(tool, { ...args, branch: "review" }, A));
      expect({ tool, code: error.code }).toEqual({ tool, code: "NotFound" });
      expect(error.message).toContain("work branch review");
    }
  });

  it("refuses an event whose payload names an unknown source_id as NotFound, storing nothing", async () => {
    const before = await revision();
    const events = async () =>
      (await ledgerStore(p.ledger).db.selectFrom("events").select("id").execute()).length;
    const stored = await events();
    const error = await ledgerFailure(
      p.ledger.call(
        "awr_event_append",
        {
          event_type: "work.observed",
          summary: "Reviewed the source",
          payload: { source_id: "01ARZ3NDEKTSV4RRFFQ69G5FAV" },
          expected_revision: before,
          request_id: "unknown-source",
        },
        A,
      ),
    );
    expect(error.code).toBe("NotFound");
    expect(error.details).toEqual({ field: "payload.source_id" });
    expect(await revision()).toBe(before);
    expect(await events()).toBe(stored);
  });

  it("takes ttl_ms from 1 ms; 0 is InvalidInput", async () => {
    const args = {
      work: "PAY-2",
      conversation: "ttl",
      agent: "a",
      provider: "p",
      model: "m",
      claim: true,
    };
    const zero = await ledgerFailure(
      p.ledger.call(
        "awr_session_start",
        { ...args, ttl_ms: 0, expected_revision: await revision() },
        A,
      ),
    );
    expect(zero.code).toBe("InvalidInput");
    expect(zero.message).toContain("ttl_ms");
    const one = await p.ledger.call(
      "awr_session_start",
      { ...args, ttl_ms: LIMITS.ttlMs.min, expected_revision: await revision() },
      A,
    );
    expect(one.claim).not.toBeNull();
  });

  it("reports a write whose final receipt is lost as MutationConflict with write_outcome unknown", async () => {
    const previous = process.env["AWR_TEST_FAULT"];
    process.env["AWR_TEST_FAULT"] = "finish_fails";
    let error: Awaited<ReturnType<typeof ledgerFailure>>;
    try {
      error = await ledgerFailure(
        p.ledger.call(
          "awr_event_append",
          {
            event_type: "note",
            summary: "s",
            expected_revision: await revision(),
            request_id: "lost",
          },
          A,
        ),
      );
    } finally {
      if (previous === undefined) delete process.env["AWR_TEST_FAULT"];
      else process.env["AWR_TEST_FAULT"] = previous;
    }
    expect(error.code).toBe("MutationConflict");
    expect(error.details).toMatchObject({ write_outcome: "unknown", request_id: "lost" });
    const recovered = await p.ledger.call(
      "awr_operation_recover",
      { request_id: "lost", expected_revision: await revision() },
      A,
    );
    expect(recovered.write_outcome).toBe("committed");
  });
});
