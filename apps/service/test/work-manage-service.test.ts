import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { makeProject, tempDir, WORK_LEDGER, writeRegistry } from "./support/projects.js";
import {
  httpClient,
  killAll,
  ok,
  type RunningService,
  startHttpService,
  stdioClient,
} from "./support/service-process.js";

/**
 * awr_work_manage over a real MCP server. It records the host's observations as a runtime
 * receipt and writes no source: every answer, recorded, replayed or refused, leaves the work
 * ledger's bytes as they were. Over the shared service the record is its session's client's.
 */

const TOKENS = { alice: "a".repeat(48), bob: "b".repeat(48), reader: "r".repeat(48) };

let dir: string;
let cleanup: () => Promise<void>;
const clients: Client[] = [];

async function refused(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, JSON.stringify(result.structuredContent)).toBe(true);
  const body = result.structuredContent as Record<string, unknown>;
  return ((body["error"] as Record<string, unknown> | undefined) ?? body) as {
    code: string;
    message: string;
  };
}

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

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("awr-service-manage-"));
});
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  killAll();
  await cleanup?.();
});

describe("awr_work_manage over stdio", () => {
  it("records once per request_key, replays it, and refuses stale input, never writing a source", async () => {
    const { root } = await makeProject(dir, "local");
    const file = join(root, "work-ledger.yaml");
    const { client } = await stdioClient(root);
    clients.push(client);
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
  let service: RunningService;
  let root: string;
  beforeAll(async () => {
    const alpha = await makeProject(dir, "alpha");
    root = alpha.root;
    const registry = await writeRegistry(
      dir,
      [{ key: "alpha", ...alpha }],
      [
        { id: "alice", token: TOKENS.alice, write: ["alpha"] },
        { id: "bob", token: TOKENS.bob, write: ["alpha"] },
        { id: "reader", token: TOKENS.reader, read: ["alpha"] },
      ],
    );
    service = await startHttpService(registry.file, registry.env);
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
  });

  it("is its session's client's: another writer and a reader are refused; a request_id replays", async () => {
    const connect = async (token: string) => {
      const client = await httpClient(service.url, token);
      clients.push(client);
      return client;
    };
    const [alice, bob, reader] = await Promise.all([
      connect(TOKENS.alice),
      connect(TOKENS.bob),
      connect(TOKENS.reader),
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
