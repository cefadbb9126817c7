import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { awr, demoProject, removeTemps } from "./support/cli-harness.js";

// `awr session compaction observe|inspect|defer`: the host's compaction telemetry in through
// --input, the assessment out, the user's "not now" recorded; refusals write nothing.

afterAll(removeTemps);

// biome-ignore lint/suspicious/noExplicitAny: the answers are JSON, read field by field.
type Json = Record<string, any>;

describe("awr session compaction", () => {
  it("observes, inspects and defers through the command line, each step a separate run", async () => {
    const root = await demoProject();
    const run = async (args: (string | number)[], code = 0) => {
      const result = await awr(["--project", root, "--json", ...args.map(String)]);
      expect({ args, code: result.code, stderr: result.stderr }).toMatchObject({ code });
      return code === 0 ? (result.json() as Json) : (result.error() as Json);
    };
    const revision = async () => (await run(["status"]))["project_revision"] as number;
    const work = "W-1";
    const started = await run([
      "session",
      "start",
      "--work",
      work,
      "--agent",
      "a",
      "--provider",
      "p",
      "--model",
      "m",
      "--expected-revision",
      await revision(),
    ]);
    const sid = started["session"]["id"] as string;

    const fresh = await run(["session", "compaction", "inspect", "--session", sid]);
    expect(fresh).toMatchObject({
      ok: true,
      read_only: true,
      freshness_basis: "runtime_records_only",
      state: "measurement_missing",
      observation_event_id: null,
      post_compaction_percent: null,
      policy: { post_compaction_threshold_percent: 50 },
      native_compaction: "unchanged",
      session_switch_performed: false,
    });

    const request = {
      session: sid,
      expected_revision: await revision(),
      observation: {
        compaction_id: "native-7",
        sequence: 7,
        observed_at: Date.now() - 1000,
        trigger: "automatic",
        model: "host-model",
        source: "host.telemetry.compaction-7",
        measurement_scope: "full_request",
        measurement_basis: "host_reported",
        before_tokens: 230_000,
        after_tokens: 140_000,
        context_window_tokens: 256_000,
      },
      policy: { post_compaction_threshold_percent: 50 },
    };
    await writeFile(join(root, "observation.json"), JSON.stringify(request));
    const observed = await run(["session", "compaction", "observe", "--input", "observation.json"]);
    expect(observed).toMatchObject({
      read_only: false,
      already_recorded: false,
      state: "handoff_candidate",
      session: sid,
      post_compaction_percent: (140_000 * 100) / 256_000,
    });
    expect(observed["recorded_event_id"]).toBe(observed["observation_event_id"]);
    const afterObserve = await revision();

    // The same file again (its revision now stale) is answered as recorded and spends nothing.
    const again = await run(["session", "compaction", "observe", "--input", "observation.json"]);
    expect(again).toMatchObject({
      already_recorded: true,
      recorded_event_id: observed["recorded_event_id"],
    });
    expect(await revision()).toBe(afterObserve);

    // The same id with other measurements is SourceConflict; an unknown session NotFound.
    await writeFile(
      join(root, "changed.json"),
      JSON.stringify({
        ...request,
        expected_revision: afterObserve,
        observation: { ...request.observation, after_tokens: 1 },
      }),
    );
    expect(
      (await run(["session", "compaction", "observe", "--input", "changed.json"], 1))["code"],
    ).toBe("SourceConflict");
    await writeFile(
      join(root, "nobody.json"),
      JSON.stringify({ ...request, session: "01NOSUCHSESSION", expected_revision: afterObserve }),
    );
    expect(
      (await run(["session", "compaction", "observe", "--input", "nobody.json"], 1))["code"],
    ).toBe("NotFound");
    expect(await revision()).toBe(afterObserve);

    const detailed = await run([
      "session",
      "compaction",
      "inspect",
      "--session",
      sid,
      "--include-observation",
    ]);
    expect(detailed).toMatchObject({
      observation: { compaction_id: "native-7", after_tokens: 140_000, duration_ms: null },
      previous_observation: null,
      deferral_event_id: null,
    });

    const deferred = await run([
      "session",
      "compaction",
      "defer",
      "--session",
      sid,
      "--observation-event-id",
      observed["observation_event_id"],
      "--expected-revision",
      afterObserve,
    ]);
    expect(deferred).toMatchObject({ state: "deferred", already_recorded: false });
    expect(await run(["session", "compaction", "inspect", "--session", sid])).toMatchObject({
      state: "deferred",
      observation_event_id: observed["observation_event_id"],
    });

    // Human output names the state and the guidance.
    const human = await awr([
      "--project",
      root,
      "session",
      "compaction",
      "inspect",
      "--session",
      sid,
    ]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("deferred");
  });
});
