import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolInput } from "@awr/awr-ledger";
import { ledgerStore } from "@awr/awr-ledger/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ledgerFailure } from "./fixtures/runtime/harness.js";
import { BACKENDS, tempRoot } from "./helpers/backends.js";
import { type OpenProject, openProjectAt } from "./helpers/projects.js";

const caller = { client: "stdio" };
const SHA = "a".repeat(40);
const C1 = "The report contains the requested analysis";
const C2 = "The report is reviewed and delivered";

const MANIFEST = `[project]
name = "management"

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
const LEDGER = `work_items:
  - id: W
    title: Deliver the report
    status: ready
    goal: goal#deliver
    depends_on: [D]
    acceptance:
      - ${C1}
      - ${C2}
  - id: D
    title: Gather the data
    status: completed
    acceptance: [Data gathered]
  - id: OPEN
    title: Open dependency
    status: ready
    depends_on: [W]
    acceptance: [Done]
`;
const GOALS =
  "# Goals\n\n## Deliver the analysis {#deliver status=active}\n\nThe user asked for it.\n";

const ALL_KNOWN = {
  single_outcome: true,
  bounded_scope: true,
  single_executor: true,
  no_deferred_wait: true,
  independently_schedulable_units: 1,
  plan_valid: true,
  outcome_known: true,
};

describe.each(BACKENDS)("work management and completion preparation on %s", (backend) => {
  let p: OpenProject;
  beforeEach(async () => {
    const { root, remove } = tempRoot("awr-management-");
    writeFileSync(join(root, "project.toml"), MANIFEST);
    writeFileSync(join(root, "work.yaml"), LEDGER);
    writeFileSync(join(root, "GOALS.md"), GOALS);
    p = await openProjectAt(root, join(root, "project.toml"), backend, remove);
  });
  afterEach(() => p.close());

  const revision = () => ledgerStore(p.ledger).currentRevision();
  const startOn = async (work: string, conversation = "conv") =>
    p.ledger.call(
      "awr_session_start",
      {
        work,
        conversation,
        agent: "worker-a",
        provider: "p",
        model: "m",
        claim: true,
        expected_revision: await revision(),
      },
      caller,
    );
  const assess = (work = "W") => p.ledger.call("awr_work_assess", { work }, caller);
  const manage = async (
    session: string,
    fingerprint: string,
    request_key: string,
    facts: Record<string, unknown> = ALL_KNOWN,
  ) =>
    p.ledger.call(
      "awr_work_manage",
      {
        work: "W",
        session,
        expected_revision: await revision(),
        request_key,
        contract_fingerprint: fingerprint,
        observation: { observed_at: Date.now() - 1000, note: "Checked the task", ...facts },
      },
      caller,
    );

  it("assesses unrecorded work as undetermined, naming every unknown fact, and changes nothing", async () => {
    const before = await revision();
    const a = await assess();
    expect(a).toMatchObject({
      ok: true,
      version: 1,
      work: "W",
      branch_id: null,
      observation: null,
      observer: null,
      observation_event: null,
      previous_record: null,
      record_required: true,
      admission_gaps: [],
      observation_basis: "host_assertion_not_independently_verified",
      next_action: "record_current_assessment_with_explicit_host_observations",
    });
    expect(a.contract_fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(a.decision).toMatchObject({
      mode: "undetermined",
      reasons: [],
      completion_policy: "unchanged_source_policy",
      execution_admission: "not_granted_by_management_classification",
    });
    expect(a.decision.unknown_observations).toEqual([
      "single_outcome",
      "bounded_scope",
      "single_executor",
      "no_deferred_wait",
      "plan_valid",
      "outcome_known",
      "independently_schedulable_units",
    ]);
    expect(a.decision.required_actions).toContain("assess_unknown_management_facts");
    expect(await revision()).toBe(before);
    // A dependency that is not completed is a reason for continuous management on its own.
    const open = await assess("OPEN");
    expect(open.decision.mode).toBe("continuous");
    expect(open.decision.reasons).toEqual([
      { code: "unresolved_dependencies", basis: "source_projection", reference: "OPEN" },
    ]);
  });

  it("records observations once per request_key, and later assessments use them", async () => {
    const session = (await startOn("W")).session.id;
    const { contract_fingerprint } = await assess();
    const recorded = await manage(session, contract_fingerprint, "first");
    expect(recorded).toMatchObject({
      ok: true,
      already_recorded: false,
      source_write_performed: false,
      completion_claimed: false,
      assessment: {
        record_required: false,
        observer: "worker-a",
        next_action: "follow_required_actions_and_existing_workflow",
        decision: { mode: "lightweight", unknown_observations: [] },
      },
      event: { event_type: "management.assessed", work: "W", session },
    });
    const later = await assess();
    expect(later).toMatchObject({
      record_required: false,
      observer: "worker-a",
      observation_event: recorded.event.id,
      previous_record: recorded.event.id,
      observation: { note: "Checked the task", single_outcome: true },
      decision: { mode: "lightweight" },
    });

    const at = await revision();
    const again = await p.ledger.call(
      "awr_work_manage",
      {
        work: "W",
        session,
        expected_revision: at,
        request_key: "first",
        contract_fingerprint,
        observation: recorded.assessment.observation as never,
      },
      caller,
    );
    expect(again).toMatchObject({ already_recorded: true, event: { id: recorded.event.id } });
    expect(await revision()).toBe(at);
    // Journaled under a request_id, the record is one write like any other.
    const journaled = await p.ledger.call(
      "awr_work_manage",
      {
        work: "W",
        session,
        expected_revision: at,
        request_key: "second",
        request_id: "manage-1",
        contract_fingerprint,
        observation: { observed_at: Date.now() - 1000, note: "Checked again", ...ALL_KNOWN },
      },
      caller,
    );
    expect(journaled).toMatchObject({ already_recorded: false, request_id: "manage-1" });
    expect((await assess()).observation_event).toBe(journaled.event.id);
    const conflict = await ledgerFailure(
      manage(session, contract_fingerprint, "first", { ...ALL_KNOWN, plan_valid: false }),
    );
    expect(conflict.code).toBe("SourceConflict");
  });

  it("keeps continuous management once recorded, and refuses a stale contract or another work's session", async () => {
    const session = (await startOn("W")).session.id;
    const { contract_fingerprint } = await assess();
    const handoff = await manage(session, contract_fingerprint, "k1", {
      ...ALL_KNOWN,
      single_executor: false,
      active_elapsed_ms: 31 * 60 * 1000,
    });
    expect(handoff.assessment.decision.mode).toBe("continuous");
    expect(handoff.assessment.decision.reasons).toEqual([
      { code: "handoff_or_collaboration", basis: "host_assertion", reference: "single_executor" },
    ]);
    expect(handoff.assessment.decision.reevaluation_signals).toEqual([
      "active_elapsed_at_least_30_minutes",
    ]);
    const calm = await manage(session, contract_fingerprint, "k2");
    expect(calm.assessment.decision.mode).toBe("continuous");
    expect(calm.assessment.decision.reasons.map((r) => r.code)).toEqual([
      "continuous_management_retained",
    ]);

    const stale = await ledgerFailure(manage(session, `sha256:${"0".repeat(64)}`, "k3"));
    expect(stale.code).toBe("SourceConflict");
    const other = (await startOn("OPEN", "other-conv")).session.id;
    const wrong = await ledgerFailure(manage(other, contract_fingerprint, "k4"));
    expect(wrong.code).toBe("RuleViolation");
    const future = await ledgerFailure(
      p.ledger.call(
        "awr_work_manage",
        {
          work: "W",
          session,
          expected_revision: await revision(),
          request_key: "k5",
          contract_fingerprint,
          observation: { observed_at: Date.now() + 3_600_000, note: "later" },
        },
        caller,
      ),
    );
    expect(future.code).toBe("InvalidInput");

    // Editing what the work asks for voids the recorded observation (progress would not).
    const path = join(p.root, "work.yaml");
    writeFileSync(path, readFileSync(path, "utf8").replace("Deliver the report", "Deliver two"));
    await p.ledger.call("awr_source_reindex", { expected_revision: await revision() }, caller);
    const changed = await assess();
    expect(changed.contract_fingerprint).not.toBe(contract_fingerprint);
    expect(changed).toMatchObject({ observation: null, record_required: true });
    expect(changed.decision.reasons.map((r) => r.code)).toEqual([
      "work_contract_changed",
      "continuous_management_retained",
    ]);
  });

  const report = (overrides: Record<string, unknown> = {}) => ({
    version: 1,
    work_item: "W",
    source_sha: SHA,
    command: "verify report and delivery",
    scope: ["W"],
    verified_at: Date.now() - 1000,
    checks: [
      { name: "content and delivery", passed: true, details: "Checked", criteria: [C1, C2] },
    ],
    ...overrides,
  });
  const writeReport = (name: string, value: unknown) => {
    const text = JSON.stringify(value, null, 2);
    writeFileSync(join(p.root, name), text);
    return createHash("sha256").update(text).digest("hex");
  };
  const prepare = (reportPath: string, level = "locally_verified") =>
    p.ledger.call(
      "awr_completion_prepare",
      {
        work: "W",
        report: reportPath,
        evidence_key: "E",
        source_sha: SHA,
        level: level as "locally_verified",
      },
      caller,
    );

  it("prepares a completion from the actual report bytes, which then completes the work", async () => {
    const sha256 = writeReport("report.json", report());
    const before = await revision();
    const prepared = await prepare("report.json");
    expect(prepared).toMatchObject({
      ok: true,
      stage: "report_validated",
      report_sha256: sha256,
      verification_executed: false,
      completion_claimed: false,
      level_basis: "caller_assertion",
      evidence: {
        external_key: "E",
        work: "W",
        evidence_type: "verification_report",
        locator: "report.json",
        sha256,
        scope: ["W"],
      },
      completion: {
        version: 1,
        source_sha: SHA,
        minimum_level: "locally_verified",
        acceptance: [
          { criterion: C1, evidence: ["E"] },
          { criterion: C2, evidence: ["E"] },
        ],
        required_evidence: [],
      },
    });
    expect(await revision()).toBe(before);

    const session = (await startOn("W")).session.id;
    await p.ledger.call(
      "awr_evidence_record",
      {
        ...(prepared.evidence as unknown as ToolInput<"awr_evidence_record">),
        expected_revision: await revision(),
      },
      caller,
    );
    await p.ledger.call(
      "awr_work_transition",
      {
        work: "W",
        action: "progress",
        session,
        reason: "start",
        expected_revision: await revision(),
      },
      caller,
    );
    const done = await p.ledger.call(
      "awr_work_transition",
      {
        work: "W",
        action: "complete",
        session,
        reason: "report checked",
        completion: prepared.completion,
        expected_revision: await revision(),
      },
      caller,
    );
    expect(done.ok).toBe(true);
  });

  it("refuses a report that does not cover the current acceptance, or is not the work's", async () => {
    writeReport(
      "partial.json",
      report({ checks: [{ name: "content", passed: true, details: "ok", criteria: [C1] }] }),
    );
    const partial = await ledgerFailure(prepare("partial.json"));
    expect(partial.code).toBe("EvidenceMissing");
    writeReport(
      "failed.json",
      report({
        checks: [
          { name: "all", passed: true, details: "ok", criteria: [C1, C2] },
          { name: "delivery", passed: false, details: "not delivered", criteria: [C2] },
        ],
      }),
    );
    expect((await ledgerFailure(prepare("failed.json"))).code).toBe("EvidenceMissing");
    writeReport("noscope.json", report({ scope: [] }));
    expect((await ledgerFailure(prepare("noscope.json"))).code).toBe("EvidenceMissing");
    writeReport("other.json", report({ work_item: "D" }));
    expect((await ledgerFailure(prepare("other.json"))).code).toBe("InvalidInput");
    writeReport("extra.json", { ...report(), passed: true });
    expect((await ledgerFailure(prepare("extra.json"))).code).toBe("InvalidInput");
    writeFileSync(join(p.root, "broken.json"), "{ not json");
    expect((await ledgerFailure(prepare("broken.json"))).code).toBe("InvalidInput");
    expect((await ledgerFailure(prepare("missing.json"))).code).toBe("NotFound");
    writeReport("report.json", report());
    expect((await ledgerFailure(prepare("report.json", "implemented"))).code).toBe("InvalidInput");
    expect((await ledgerFailure(prepare("report.json", "unknown"))).code).toBe("InvalidInput");
    expect((await ledgerFailure(prepare("../outside.json"))).code).toBe("RuleViolation");
  });
});
