import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ledgerStore } from "@awr/awr-ledger/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ledgerFailure } from "./fixtures/runtime/harness.js";
import { BACKENDS, tempRoot } from "./helpers/backends.js";
import { type OpenProject, openProjectAt } from "./helpers/projects.js";

// Compaction continuity through the Ledger's execute (the arguments pass the catalog's gate
// exactly as they would over the wire): the host's telemetry is recorded as session events, the
// assessment is computed only from host-reported full-request measurements, the threshold comes
// from the policy sent with the observation, and every refusal leaves the ledger as it was.

const caller = { client: "stdio" };
const MANIFEST = `[project]
name = "compaction"
context_profile = "minimal"

[[sources]]
domain = "work"
role = "primary"
path = "work.yaml"
adapter = "yaml-ledger-v1"

[[sources]]
domain = "goal"
role = "primary"
path = "GOALS.md"
adapter = "markdown-heading-v1"
`;
const GOALS = "# Goals\n\n## A usable guide {#guide status=active}\n\nReaders find answers.\n";
const LEDGER = `work_items:
  - id: W
    title: Write the guide
    status: ready
    goal: goal#guide
    next_action: Draft the first chapter
    acceptance: [The guide is written]
`;

// biome-ignore lint/suspicious/noExplicitAny: the answers are JSON, read field by field.
type Json = Record<string, any>;

/** One fixed completion time, so that the same observation sent twice is the same. */
const OBSERVED_AT = Date.now() - 10_000;

describe.each(BACKENDS)("compaction continuity on %s", (backend) => {
  let p: OpenProject;
  let sid: string;
  beforeEach(async () => {
    const { root, remove } = tempRoot("awr-compaction-");
    writeFileSync(join(root, "project.toml"), MANIFEST);
    writeFileSync(join(root, "work.yaml"), LEDGER);
    writeFileSync(join(root, "GOALS.md"), GOALS);
    p = await openProjectAt(root, join(root, "project.toml"), backend, remove);
    const started = await p.ledger.execute(
      "awr_session_start",
      {
        work: "W",
        conversation: "conv",
        agent: "a",
        provider: "p",
        model: "m",
        expected_revision: await revision(),
      },
      caller,
    );
    sid = (started["session"] as Json)["id"];
  });
  afterEach(() => p.close());

  const revision = () => ledgerStore(p.ledger).currentRevision();
  const eventCount = async () => (await p.db.db.selectFrom("events").select("id").execute()).length;
  const observation = (over: Json = {}) => ({
    compaction_id: "c-1",
    sequence: 1,
    observed_at: OBSERVED_AT,
    trigger: "automatic",
    model: "host-model",
    source: "host.telemetry.compaction",
    measurement_scope: "full_request",
    measurement_basis: "host_reported",
    before_tokens: 180_000,
    after_tokens: 60_000,
    context_window_tokens: 200_000,
    ...over,
  });
  const observe = async (over: Json = {}, extra: Json = {}) =>
    p.ledger.execute(
      "awr_compaction_observe",
      {
        session: sid,
        expected_revision: await revision(),
        observation: observation(over),
        ...extra,
      },
      caller,
    ) as Promise<Json>;
  const get = (args: Json = {}) =>
    p.ledger.execute("awr_compaction_get", { session: sid, ...args }, caller) as Promise<Json>;

  it("answers measurement_missing before any observation, read-only and in its own envelope", async () => {
    const before = await revision();
    expect(await get()).toEqual({
      ok: true,
      version: 1,
      read_only: true,
      project_revision: before,
      project_id: p.ledger.projectId,
      freshness_basis: "runtime_records_only",
      session: sid,
      state: "measurement_missing",
      observation_event_id: null,
      post_compaction_percent: null,
      previous_delta_percentage_points: null,
      policy: { post_compaction_threshold_percent: 50 },
      guidance: expect.objectContaining({ when: expect.any(String) }),
      native_compaction: "unchanged",
      session_switch_performed: false,
    });
    expect(await revision()).toBe(before);
  });

  it("advises continue below the default 50% and a handoff at or above it, with the delta between comparable observations", async () => {
    const low = await observe();
    expect(low).toMatchObject({
      state: "continue",
      post_compaction_percent: 30,
      previous_delta_percentage_points: null,
      already_recorded: false,
      read_only: false,
    });
    const high = await observe({ compaction_id: "c-2", sequence: 2, after_tokens: 110_000 });
    expect(high).toMatchObject({
      state: "handoff_candidate",
      post_compaction_percent: 55,
      previous_delta_percentage_points: 25,
    });
    expect(high["guidance"]["basis"]).toContain("55.0%");
    expect(await get()).toMatchObject({
      state: "handoff_candidate",
      observation_event_id: high["recorded_event_id"],
    });
    const events = await p.db.db
      .selectFrom("events")
      .selectAll()
      .where("type", "=", "client.compaction_observed")
      .execute();
    expect(events.map((e) => [e.session, e.work !== null, e.importance])).toEqual([
      [sid, true, "low"],
      [sid, true, "low"],
    ]);
  });

  it("takes the threshold from the policy sent with the observation", async () => {
    const strict = await observe({}, { policy: { post_compaction_threshold_percent: 25 } });
    expect(strict).toMatchObject({
      state: "handoff_candidate",
      policy: { post_compaction_threshold_percent: 25 },
    });
  });

  it("never estimates: estimated, history-only or windowless measurements stay unknown", async () => {
    for (const [i, over] of [
      { measurement_basis: "estimated" },
      { measurement_scope: "history_only" },
      { context_window_tokens: null },
      { after_tokens: undefined },
    ].entries()) {
      const answer = await observe({ compaction_id: `u-${i}`, sequence: i + 1, ...over });
      expect(answer).toMatchObject({ state: "measurement_missing", post_compaction_percent: null });
    }
    const details = await get({ include_observation: true });
    expect(details["observation"]).toMatchObject({ after_tokens: null, usage: null });
    expect(details["measurement_basis"]).toContain("host_reported");
  });

  it("keeps manual compactions apart from the automatic policy and compares only like with like", async () => {
    await observe();
    const manual = await observe({
      compaction_id: "m",
      sequence: 2,
      trigger: "manual",
      after_tokens: 190_000,
    });
    expect(manual).toMatchObject({
      state: "manual_observation",
      previous_delta_percentage_points: null,
    });
  });

  it("is idempotent per compaction_id: the same observation again writes nothing, whatever the revision", async () => {
    const first = await observe();
    const before = await revision();
    const events = await eventCount();
    const again = await p.ledger.execute(
      "awr_compaction_observe",
      { session: sid, expected_revision: 1, observation: observation() },
      caller,
    );
    expect(again).toMatchObject({
      already_recorded: true,
      recorded_event_id: first["recorded_event_id"],
      project_revision: before,
    });
    expect(await revision()).toBe(before);
    expect(await eventCount()).toBe(events);
    const conflict = await ledgerFailure(observe({ after_tokens: 1 }));
    expect(conflict.code).toBe("SourceConflict");
    const policyConflict = await ledgerFailure(
      observe({}, { policy: { post_compaction_threshold_percent: 70 } }),
    );
    expect(policyConflict.code).toBe("SourceConflict");
    expect(await revision()).toBe(before);
  });

  it("refuses an out-of-order sequence or time, keeping the latest observation", async () => {
    const latest = await observe({ compaction_id: "c-5", sequence: 5 });
    const before = await revision();
    const lower = await ledgerFailure(observe({ compaction_id: "c-4", sequence: 4 }));
    expect(lower.code).toBe("SourceConflict");
    const earlier = await ledgerFailure(
      observe({ compaction_id: "c-6", sequence: 6, observed_at: OBSERVED_AT - 60_000 }),
    );
    expect(earlier.code).toBe("SourceConflict");
    expect(await revision()).toBe(before);
    expect((await get())["observation_event_id"]).toBe(latest["recorded_event_id"]);
  });

  it("records the user's deferral for the latest observation only, until the next observation", async () => {
    const high = await observe({ after_tokens: 150_000 });
    const deferred = await p.ledger.execute(
      "awr_compaction_defer",
      {
        session: sid,
        expected_revision: await revision(),
        observation_event_id: high["recorded_event_id"],
      },
      caller,
    );
    expect(deferred).toMatchObject({ state: "deferred", already_recorded: false });
    const before = await revision();
    const again = await p.ledger.execute(
      "awr_compaction_defer",
      { session: sid, expected_revision: 1, observation_event_id: high["recorded_event_id"] },
      caller,
    );
    expect(again).toMatchObject({
      already_recorded: true,
      recorded_event_id: deferred["recorded_event_id"],
    });
    expect(await revision()).toBe(before);
    expect(await get({ include_observation: true })).toMatchObject({
      state: "deferred",
      deferral_event_id: deferred["recorded_event_id"],
    });
    const next = await observe({ compaction_id: "c-2", sequence: 2, after_tokens: 150_000 });
    expect(next["state"]).toBe("handoff_candidate");
    // Retrying the old deferral answers its receipt but cannot suppress the newer observation.
    const retried = await p.ledger.execute(
      "awr_compaction_defer",
      { session: sid, expected_revision: 1, observation_event_id: high["recorded_event_id"] },
      caller,
    );
    expect(retried).toMatchObject({ already_recorded: true, state: "handoff_candidate" });
    await observe({ compaction_id: "c-3", sequence: 3 });
    const notLatest = await ledgerFailure(
      p.ledger.execute(
        "awr_compaction_defer",
        {
          session: sid,
          expected_revision: await revision(),
          observation_event_id: next["recorded_event_id"],
        },
        caller,
      ),
    );
    expect(notLatest.code).toBe("SourceConflict");
  });

  it("lets an open wait outrank the handoff advice", async () => {
    await p.ledger.execute(
      "awr_session_wait",
      {
        session: sid,
        expected_revision: await revision(),
        question: "Which format?",
        context_hash: "sha256:test-context",
        digest: "Drafted",
        next_action: "Ask",
      },
      caller,
    );
    const high = await observe({ after_tokens: 150_000 });
    expect(high["state"]).toBe("handoff_candidate");
    expect(high["guidance"]["when"]).toMatch(/question/i);
  });

  it("refuses bad sessions, wrong types and impossible values, changing nothing", async () => {
    const before = await revision();
    const events = await eventCount();
    const refusals: [Json, string][] = [
      [{ session: "01NOSUCHSESSION" }, "NotFound"],
      [{ session: sid, observation: observation({ sequence: "1" }) }, "InvalidInput"],
      [{ session: sid, observation: observation({ sequence: 0 }) }, "InvalidInput"],
      [{ session: sid, observation: observation({ trigger: "sometimes" }) }, "InvalidInput"],
      [
        { session: sid, observation: observation({ observed_at: Date.now() + 3_600_000 }) },
        "InvalidInput",
      ],
      [{ session: sid, observation: observation({ model: "  " }) }, "InvalidInput"],
      [{ session: sid, observation: observation({ after_tokens: 2_000_000_000 }) }, "InvalidInput"],
      [
        {
          session: sid,
          observation: observation({ usage: { input_tokens: 5, cached_input_tokens: 9 } }),
        },
        "InvalidInput",
      ],
      [
        {
          session: sid,
          observation: observation(),
          policy: { post_compaction_threshold_percent: 0 },
        },
        "InvalidInput",
      ],
      [{ session: sid, observation: observation(), extra: true }, "InvalidInput"],
    ];
    for (const [args, code] of refusals) {
      const error = await ledgerFailure(
        p.ledger.execute(
          "awr_compaction_observe",
          { observation: observation(), expected_revision: before, ...args },
          caller,
        ),
      );
      expect({ args, code: error.code }).toEqual({ args, code });
    }
    const other = await ledgerFailure(
      p.ledger.execute("awr_compaction_get", { session: sid }, { client: "someone-else" }),
    );
    expect(other.code).toBe("RuleViolation");
    expect(await revision()).toBe(before);
    expect(await eventCount()).toBe(events);
  });

  it("puts a handoff candidate's advice into awr_work_prepare's action view", async () => {
    const prepare = (view?: string) =>
      p.ledger.execute(
        "awr_work_prepare",
        { work: "W", session: sid, ...(view === undefined ? {} : { response_view: view }) },
        caller,
      ) as Promise<Json>;
    const before = await prepare("action");
    expect(before["continuity"]["compaction"]).toBeUndefined();
    const high = await observe({ after_tokens: 150_000 });
    const prepared = await prepare("action");
    expect(prepared["guidance"]).toEqual(high["guidance"]);
    expect(prepared["continuity"]["compaction"]).toEqual({
      state: "handoff_candidate",
      observation_event_id: high["recorded_event_id"],
      post_compaction_percent: 75,
    });
    expect((await prepare())["continuity"]["compaction"]).toBeUndefined();
  });

  it("finds the session by conversation as well", async () => {
    await observe();
    const byConversation = await p.ledger.execute(
      "awr_compaction_get",
      { conversation: "conv" },
      caller,
    );
    expect(byConversation).toMatchObject({ session: sid, state: "continue" });
  });
});
