import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useClientSet } from "./support/client-set.js";
import { makeProject, WORK_LEDGER } from "./support/projects.js";
import { ok, refused } from "./support/service-process.js";
import {
  ALICE_BOB_READER,
  alphaWithTwoWritersAndReader,
  useSharedService,
} from "./support/shared-service.js";

/**
 * awr_work_manage over a real MCP server. It records the host's observations as a runtime
 * receipt and writes no source: every answer, recorded, replayed or refused, leaves the work
 * ledger's bytes as they were. Over the shared service the record is its session's client's.
 */

const TOKENS = ALICE_BOB_READER;

const set = useClientSet("awr-service-manage-");

const observation = (note: string, units = 1) => ({
  observed_at: Date.now() - 1000,
  note,
  single_outcome: true,
  bounded_scope: true,
  single_executor: true,
  no_deferred_wait: true,
  independently_schedulable_units: units,
  plan_valid: true,
  outcome_known: true,
});

const sessionStart = (extra: Record<string, unknown>, revision: number) => ({
  work: "W-1",
  conversation: "manage-thread",
  agent: "coordinator",
  provider: "fixture",
  model: "fixture",
  claim: true,
  expected_revision: revision,
  ...extra,
});

describe("awr_work_manage over stdio", () => {
  it("records once per request_key, replays it, and refuses stale input, never writing a source", async () => {
    const { root } = await makeProject(set.dir, "local");
    const file = join(root, "work-ledger.yaml");
    const client = await set.stdio(root);
    const revision = async () =>
      (await ok(client, "awr_project_status", {}))["project_revision"] as number;
    const started = await ok(client, "awr_session_start", sessionStart({}, await revision()));
    const session = (started["session"] as { id: string }).id;
    const assessment = await ok(client, "awr_work_assess", { work: "W-1" });
    const args = {
      work: "W-1",
      session,
      expected_revision: await revision(),
      request_key: "small",
      contract_fingerprint: assessment["contract_fingerprint"],
      observation: observation("One bounded change with one executor"),
    };
    const saved = await ok(client, "awr_work_manage", args);
    expect(saved).toMatchObject({
      already_recorded: false,
      source_write_performed: false,
      completion_claimed: false,
      assessment: { decision: { mode: "lightweight" }, record_required: false },
      event: { event_type: "management.assessed", work: "W-1", session },
    });
    const at = await revision();
    expect(saved["project_revision"]).toBe(at);
    const event = (saved["event"] as { id: string }).id;

    const replay = await ok(client, "awr_work_manage", args);
    expect(replay).toMatchObject({ already_recorded: true, event: { id: event } });
    expect(await revision()).toBe(at);

    const cases: [Record<string, unknown>, string][] = [
      [{ ...args, observation: observation("changed content") }, "SourceConflict"],
      [
        {
          ...args,
          request_key: "stale-contract",
          expected_revision: at,
          contract_fingerprint: `sha256:${"0".repeat(64)}`,
        },
        "SourceConflict",
      ],
      [{ ...args, request_key: "stale-revision", expected_revision: at - 1 }, "RevisionConflict"],
    ];
    for (const [input, code] of cases) {
      expect((await refused(client, "awr_work_manage", input)).code).toBe(code);
      expect(await revision()).toBe(at);
    }
    expect((await ok(client, "awr_work_assess", { work: "W-1" }))["observation_event"]).toBe(event);
    expect(await readFile(file, "utf8")).toBe(WORK_LEDGER);
  }, 60_000);
});

describe("awr_work_manage over the shared service", () => {
  let root = "";
  const shared = useSharedService(set, (dir) =>
    alphaWithTwoWritersAndReader(dir, (alpha) => {
      root = alpha;
    }),
  );

  it("is its session's client's: another writer and a reader are refused; a request_id replays", async () => {
    const [alice, bob, reader] = await Promise.all([
      shared.connect(TOKENS.alice),
      shared.connect(TOKENS.bob),
      shared.connect(TOKENS.reader),
    ]);
    const file = join(root, "work-ledger.yaml");
    const revision = async () =>
      (await ok(alice, "awr_project_status", { project: "alpha" }))["project_revision"] as number;
    const started = await ok(
      alice,
      "awr_session_start",
      sessionStart({ project: "alpha", request_id: "start-1" }, await revision()),
    );
    const session = (started["session"] as { id: string }).id;
    const assessment = await ok(reader, "awr_work_assess", { project: "alpha", work: "W-1" });
    const args = {
      project: "alpha",
      work: "W-1",
      session,
      expected_revision: await revision(),
      request_id: "manage-1",
      request_key: "planning-observation",
      contract_fingerprint: assessment["contract_fingerprint"],
      observation: observation("Two independently schedulable deliverables", 2),
    };
    const at = await revision();
    for (const other of [reader, bob]) {
      const error = await refused(other, "awr_work_manage", args);
      // As the original's: RuleViolation for a read-only credential and for another client.
      expect(error.code).toBe("RuleViolation");
      expect(await revision()).toBe(at);
    }
    const { request_id: _omitted, ...withoutRequestId } = args;
    expect((await refused(alice, "awr_work_manage", withoutRequestId)).code).toBe("InvalidInput");

    const saved = await ok(alice, "awr_work_manage", args);
    expect(saved).toMatchObject({
      already_recorded: false,
      source_write_performed: false,
      assessment: { decision: { mode: "continuous" } },
    });
    const after = await revision();
    const replay = await ok(alice, "awr_work_manage", args);
    expect(replay).toMatchObject({ event: { id: (saved["event"] as { id: string }).id } });
    expect(await revision()).toBe(after);
    const assessed = await ok(reader, "awr_work_assess", { project: "alpha", work: "W-1" });
    expect(assessed["decision"]).toMatchObject({ mode: "continuous" });
    expect(await readFile(file, "utf8")).toBe(WORK_LEDGER);
  }, 60_000);
});
