import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ledgerStore } from "@awr/awr-ledger/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ledgerFailure } from "./fixtures/runtime/harness.js";
import { BACKENDS, tempRoot } from "./helpers/backends.js";
import { type OpenProject, openProjectAt } from "./helpers/projects.js";

/**
 * awr_work_manage records a runtime receipt (a management.assessed event) and nothing else: no
 * source byte is ever written, whatever the outcome. These cases follow the original's own
 * scenarios for the tool: replay by request_key, the contract and revision guards, a session of
 * the work (claimed or not), a changed source, and a work whose contract changes between records.
 */
const caller = { client: "stdio" };
const CRITERION = "Deliver the reviewed analysis";

const MANIFEST = `[project]
name = "manage"

[[sources]]
domain = "work"
role = "primary"
path = "work.yaml"
adapter = "yaml-ledger-v1"

[[sources]]
domain = "goal"
role = "supporting"
path = "GOALS.md"
adapter = "markdown-heading-v1"
`;
const WORK = `work_items:
  - id: W
    title: Prepare customer analysis
    status: ready
    goal: goal#analysis
    acceptance: [${CRITERION}]
  - id: OTHER
    title: Another task
    status: ready
    acceptance: [Done]
`;
/** A ledger that does not parse: its refresh is refused, so the projection stays as it was. */
const BROKEN = 'work_items:\n  - id: W\n    title: "unterminated\n';
const GOALS = "# Goals\n\n## Customer analysis {#analysis status=active}\n\nAsked for.\n";

/** A small bounded task with every fact known, as the original's tests observe it. */
const small = () => ({
  observed_at: Date.now() - 1000,
  note: "Synthetic bounded analysis with one executor and no deferred work",
  single_outcome: true,
  bounded_scope: true,
  single_executor: true,
  no_deferred_wait: true,
  independently_schedulable_units: 1,
  plan_valid: true,
  outcome_known: true,
});

describe.each(BACKENDS)("awr_work_manage guards and replay on %s", (backend) => {
  let p: OpenProject;
  let path: string;
  beforeEach(async () => {
    const { root, remove } = tempRoot("awr-manage-");
    writeFileSync(join(root, "project.toml"), MANIFEST);
    writeFileSync(join(root, "work.yaml"), WORK);
    writeFileSync(join(root, "GOALS.md"), GOALS);
    path = join(root, "work.yaml");
    p = await openProjectAt(root, join(root, "project.toml"), backend, remove);
  });
  afterEach(() => p.close());

  const revision = () => ledgerStore(p.ledger).currentRevision();
  const bytes = () => readFileSync(path);
  const records = async () =>
    (
      await ledgerStore(p.ledger)
        .db.selectFrom("events")
        .select("id")
        .where("type", "=", "management.assessed")
        .execute()
    ).length;
  const start = async (work: string, claim: boolean, conversation = `conv-${work}-${claim}`) =>
    (
      await p.ledger.call(
        "awr_session_start",
        {
          work,
          conversation,
          agent: "coordinator",
          provider: "fixture",
          model: "fixture",
          claim,
          expected_revision: await revision(),
        },
        caller,
      )
    ).session.id as string;
  const assess = () => p.ledger.call("awr_work_assess", { work: "W" }, caller);
  const manage = (input: Record<string, unknown>) =>
    p.ledger.call("awr_work_manage", input as never, caller);
  /** Refused with the source's bytes, the revision and the recorded events all unchanged. */
  const refused = async (input: Record<string, unknown>, code: string) => {
    const source = bytes();
    const at = await revision();
    const count = await records();
    const error = await ledgerFailure(manage(input));
    expect(error.code).toBe(code);
    expect(bytes().equals(source)).toBe(true);
    expect(await revision()).toBe(at);
    expect(await records()).toBe(count);
    return error;
  };

  it("replays a request_key's recorded outcome, even at a later revision, and refuses other content under it", async () => {
    const session = await start("W", true);
    const before = bytes();
    const assessment = await assess();
    expect(assessment.decision.mode).toBe("undetermined");
    const args = {
      work: "W",
      session,
      expected_revision: await revision(),
      request_key: "small",
      contract_fingerprint: assessment.contract_fingerprint,
      observation: { ...small(), active_elapsed_ms: 1_800_000, completed_rework_cycles: 3 },
    };
    const saved = await manage(args);
    expect(saved).toMatchObject({
      ok: true,
      already_recorded: false,
      source_write_performed: false,
      completion_claimed: false,
      assessment: { decision: { mode: "lightweight" } },
    });
    expect(saved.assessment.decision.reevaluation_signals).toHaveLength(2);
    expect(saved.project_revision).toBe(await revision());

    // The replay is answered before the revision guard: a stale expected_revision still gets it.
    const at = await revision();
    const replay = await manage(args);
    expect(replay).toMatchObject({
      already_recorded: true,
      event: { id: saved.event.id, event_type: "management.assessed" },
      project_revision: at,
    });
    expect(replay.assessment).toEqual(saved.assessment);
    expect(await revision()).toBe(at);
    expect(await records()).toBe(1);

    const changed = { ...args, observation: { ...args.observation, note: "changed content" } };
    const conflict = await refused({ ...changed, expected_revision: at }, "SourceConflict");
    expect(conflict.details).toMatchObject({ request_key: "small", event: saved.event.id });

    const current = await assess();
    expect(current).toMatchObject({
      work_id: assessment.work_id,
      observer: "coordinator",
      observation_event: saved.event.id,
      decision: { mode: "lightweight" },
    });
    // A record of the reserved type cannot be forged through the generic event append.
    const forged = await ledgerFailure(
      p.ledger.call(
        "awr_event_append",
        {
          expected_revision: await revision(),
          work: "W",
          session,
          event_type: "management.assessed",
          summary: "forge a mode",
          payload: {},
        } as never,
        caller,
      ),
    );
    expect(forged.code).toBe("InvalidInput");
    expect(bytes().equals(before)).toBe(true);
  });

  it("refuses a stale contract_fingerprint, a stale revision and another work's session, writing nothing", async () => {
    const session = await start("W", true);
    const { contract_fingerprint } = await assess();
    const base = {
      work: "W",
      session,
      request_key: "k",
      contract_fingerprint,
      observation: small(),
    };
    await refused(
      {
        ...base,
        expected_revision: await revision(),
        contract_fingerprint: `sha256:${"0".repeat(64)}`,
      },
      "SourceConflict",
    );
    const stale = await refused(
      { ...base, expected_revision: (await revision()) - 1 },
      "RevisionConflict",
    );
    expect(stale.details).toMatchObject({ actual: await revision() });
    const other = await start("OTHER", true);
    await refused(
      { ...base, session: other, expected_revision: await revision() },
      "RuleViolation",
    );
    await refused({ ...base, work: "NOPE", expected_revision: await revision() }, "NotFound");
    await refused(
      { ...base, request_key: "  ", expected_revision: await revision() },
      "InvalidInput",
    );
    await refused(
      { ...base, request_key: "a\u0007b", expected_revision: await revision() },
      "InvalidInput",
    );
    // The same key is free after every refusal: nothing was bound to it.
    const ok = await manage({ ...base, expected_revision: await revision() });
    expect(ok.already_recorded).toBe(false);
  });

  // The original asks only that the session be one of the work; an ended session is refused
  // here as every runtime write from an ended session is (InvalidTransition).
  it("takes a session of the work without a claim, as the original does, and refuses an ended one", async () => {
    const session = await start("W", false);
    const { contract_fingerprint } = await assess();
    const base = { work: "W", session, contract_fingerprint, observation: small() };
    const saved = await manage({
      ...base,
      request_key: "unclaimed",
      expected_revision: await revision(),
    });
    expect(saved).toMatchObject({ already_recorded: false, event: { session } });
    await p.ledger.call(
      "awr_session_end",
      { session, outcome: "ended", expected_revision: await revision() } as never,
      caller,
    );
    await refused(
      { ...base, request_key: "after-end", expected_revision: await revision() },
      "InvalidTransition",
    );
    // Its earlier record is still answered under its key.
    const replay = await manage({
      ...base,
      request_key: "unclaimed",
      expected_revision: await revision(),
    });
    expect(replay).toMatchObject({ already_recorded: true, event: { id: saved.event.id } });
  });

  it("refreshes a changed source first: the caller's revision is then stale and nothing is recorded", async () => {
    const session = await start("W", true);
    const { contract_fingerprint } = await assess();
    const at = await revision();
    const edited = WORK.replace("Prepare customer analysis", "Prepare the revised analysis");
    writeFileSync(path, edited);
    const error = await ledgerFailure(
      manage({
        work: "W",
        session,
        expected_revision: at,
        request_key: "after-edit",
        contract_fingerprint,
        observation: small(),
      }),
    );
    expect(error.code).toBe("RevisionConflict");
    expect(readFileSync(path, "utf8")).toBe(edited);
    expect(await records()).toBe(0);
    // The refreshed contract differs, so the old fingerprint is refused at the new revision too.
    await refused(
      {
        work: "W",
        session,
        expected_revision: await revision(),
        request_key: "after-edit",
        contract_fingerprint,
        observation: small(),
      },
      "SourceConflict",
    );
    // A source that does not index is stale: nothing is recorded until it is repaired.
    writeFileSync(path, BROKEN);
    const broken = await refused(
      {
        work: "W",
        session,
        expected_revision: await revision(),
        request_key: "broken",
        contract_fingerprint,
        observation: small(),
      },
      "SourceStale",
    );
    expect(broken.details?.["issues"]).toBeInstanceOf(Array);
    expect(readFileSync(path, "utf8")).toBe(BROKEN);
    expect(await records()).toBe(0);
  });

  it("keeps a changed contract continuous, with unknown results explicit and missing acceptance a gap", async () => {
    const session = await start("W", true);
    const first = await assess();
    const input: Record<string, unknown> = {
      work: "W",
      session,
      expected_revision: await revision(),
      request_key: "initial",
      contract_fingerprint: first.contract_fingerprint,
      observation: small(),
    };
    expect((await manage(input)).assessment.decision.mode).toBe("lightweight");
    const source = WORK.replace(
      `acceptance: [${CRITERION}]`,
      "acceptance: [Explain observations and remaining unknowns]",
    ).replace(
      "title: Prepare customer analysis",
      "title: Explore available data\n    kind: exploration",
    );
    writeFileSync(path, source);
    await p.ledger.call("awr_source_reindex", { expected_revision: await revision() }, caller);
    const changed = await assess();
    expect(changed.decision.mode).toBe("continuous");
    expect(changed.observation).toBeNull();
    expect(changed.decision.reasons.map((r) => r.code)).toContain("work_contract_changed");

    await refused(
      { ...input, expected_revision: await revision(), request_key: "stale-contract" },
      "SourceConflict",
    );
    const unknown = await manage({
      ...input,
      expected_revision: await revision(),
      request_key: "unknown-result",
      contract_fingerprint: changed.contract_fingerprint,
      observation: { ...small(), outcome_known: false },
    });
    expect(unknown.assessment.decision.mode).toBe("continuous");
    await manage({
      ...input,
      expected_revision: await revision(),
      request_key: "known-again",
      contract_fingerprint: changed.contract_fingerprint,
      observation: small(),
    });
    const retained = await assess();
    expect(retained.decision.mode).toBe("continuous");
    expect(retained.observation?.outcome_known).toBe(true);
    expect(readFileSync(path, "utf8")).toBe(source);

    writeFileSync(
      path,
      source.replace("acceptance: [Explain observations and remaining unknowns]", "acceptance: []"),
    );
    await p.ledger.call("awr_source_reindex", { expected_revision: await revision() }, caller);
    const missing = await assess();
    expect(missing.admission_gaps).toContain("source_acceptance_missing_or_ambiguous");
    expect(missing.next_action).toBe("repair_required_context_before_execution");
  });
  it("a real wait makes the same work continuous, and a reply does not bring it back", async () => {
    const session = await start("W", true);
    const assessment = await assess();
    await manage({
      work: "W",
      session,
      expected_revision: await revision(),
      request_key: "before-wait",
      contract_fingerprint: assessment.contract_fingerprint,
      observation: small(),
    });
    // This fixture has no rules source and no next_action, so the packet has required gaps and
    // comes back as ContextIncomplete with the whole answer; the wait needs only its hash.
    const prepared = await p.ledger
      .call("awr_work_prepare", { work: "W", session }, caller)
      .catch((error: { result?: Record<string, unknown> }) => {
        if (error.result === undefined) throw error;
        return error.result;
      });
    const context = prepared.context as { work_context: { context_hash: string } };
    const waited = await p.ledger.call(
      "awr_session_wait",
      {
        session,
        expected_revision: await revision(),
        question: "Which reporting period should this analysis cover?",
        context_hash: context.work_context.context_hash,
        digest: "Input period remains unresolved",
        next_action: "Continue after the period is supplied",
        open_loops: ["reporting period"],
      } as never,
      caller,
    );
    const waiting = await assess();
    expect(waiting.decision.mode).toBe("continuous");
    expect(waiting.work_id).toBe(assessment.work_id);
    await p.ledger.call(
      "awr_session_reply",
      {
        wait: (waited as { wait: { id: string } }).wait.id,
        expected_revision: await revision(),
        reply: "Use the previous full quarter.",
      } as never,
      caller,
    );
    await manage({
      work: "W",
      session,
      expected_revision: await revision(),
      request_key: "after-wait",
      contract_fingerprint: waiting.contract_fingerprint,
      observation: small(),
    });
    const after = await assess();
    expect(after.decision.mode).toBe("continuous");
    expect(after.decision.completion_policy).toBe("unchanged_source_policy");
    expect(after.decision.reasons.some((r) => r.basis === "runtime_history")).toBe(true);
    expect(readFileSync(path, "utf8")).toBe(WORK);
  });
});
