import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, describe, expect, it } from "vitest";
import { useClientSet } from "./support/client-set.js";
import {
  type Body,
  call,
  failure,
  hostProject,
  logicalState,
  projectIdOf,
  revisionOf,
} from "./support/host-fixture.js";
import { writeRegistry } from "./support/projects.js";
import { type RunningService, startHttpService } from "./support/service-process.js";

/**
 * Compaction continuity as a host meets it over the real awr-mcp, on stdio and on the shared
 * HTTP service: the host reports a completed compaction, reads the advice, records the user's
 * "not now", through the flat tools and through the grouped domain `awr_compaction`; a
 * replayed request and an identical observation write nothing; refusals (an unknown session,
 * wrong types, a read-only credential) leave every table as it was.
 */

const TOKENS = { writer: "w".repeat(48), reader: "r".repeat(48) };

const set = useClientSet("awr-compaction-service-");
let count = 0;

/** One fixed completion time, so that the same observation sent twice is the same. */
const OBSERVED_AT = Date.now() - 5_000;

const observation = (over: Record<string, unknown> = {}) => ({
  compaction_id: "native-1",
  sequence: 1,
  observed_at: OBSERVED_AT,
  trigger: "automatic",
  model: "host-model",
  source: "host.telemetry.compaction-1",
  measurement_scope: "full_request",
  measurement_basis: "host_reported",
  before_tokens: 190_000,
  after_tokens: 120_000,
  context_window_tokens: 200_000,
  ...over,
});

/** A call through the grouped domain tool, checked like a flat one. */
const through = (client: Client, child: string, args: Record<string, unknown>, failed = false) =>
  call(client, "awr_compaction", { child_tool: child, arguments: args }, failed);

describe("compaction continuity over stdio", () => {
  it("observes, reads and defers through the flat tools and the awr_compaction domain alike", async () => {
    const root = await hostProject(set.dir, `p${++count}`);
    const client = await set.stdio(root);
    const started = await call(client, "awr_session_start", {
      work: "W",
      conversation: "host-conv",
      agent: "a",
      provider: "p",
      model: "m",
      expected_revision: revisionOf(root),
    });
    const sid = (started["session"] as { id: string }).id;

    const before = logicalState(root);
    await failure(
      client,
      "awr_compaction_observe",
      {
        session: "01NOSUCHSESSION",
        expected_revision: revisionOf(root),
        observation: observation(),
      },
      "NotFound",
    );
    await failure(
      client,
      "awr_compaction_observe",
      {
        session: sid,
        expected_revision: revisionOf(root),
        observation: observation({ after_tokens: "many" }),
      },
      "InvalidInput",
    );
    const wrongType = await through(
      client,
      "awr_compaction_observe",
      {
        session: sid,
        expected_revision: revisionOf(root),
        observation: observation({ sequence: -1 }),
      },
      true,
    );
    expect(wrongType["code"]).toBe("InvalidInput");
    expect(logicalState(root)).toEqual(before);

    const observed = await through(client, "awr_compaction_observe", {
      conversation: "host-conv",
      expected_revision: revisionOf(root),
      observation: observation(),
    });
    expect(observed).toMatchObject({
      ok: true,
      state: "handoff_candidate",
      post_compaction_percent: 60,
      already_recorded: false,
      session: sid,
    });
    const revision = revisionOf(root);
    const again = await call(client, "awr_compaction_observe", {
      session: sid,
      expected_revision: revision,
      observation: observation(),
    });
    expect(again).toMatchObject({
      already_recorded: true,
      recorded_event_id: observed["recorded_event_id"],
    });
    expect(revisionOf(root)).toBe(revision);

    const flat = await call(client, "awr_compaction_get", { session: sid });
    const grouped = await through(client, "awr_compaction_get", { session: sid });
    expect(grouped).toEqual(flat);
    expect(flat).toMatchObject({ read_only: true, freshness_basis: "runtime_records_only" });

    const deferred = await through(client, "awr_compaction_defer", {
      session: sid,
      expected_revision: revisionOf(root),
      observation_event_id: observed["observation_event_id"],
    });
    expect(deferred).toMatchObject({ state: "deferred", already_recorded: false });
    expect(await call(client, "awr_compaction_get", { session: sid })).toMatchObject({
      state: "deferred",
    });
  });
});

describe("compaction continuity on the shared service", () => {
  let service: RunningService | undefined;
  afterAll(async () => {
    await service?.stop();
  });

  it("journals writes by request_id, refuses a read-only credential and changes nothing on refusal", async () => {
    const root = await hostProject(set.dir, `p${++count}`);
    const registry = await writeRegistry(
      set.dir,
      [{ key: "alpha", root, project_id: projectIdOf(root) }],
      [
        { id: "writer", token: TOKENS.writer, write: ["alpha"] },
        { id: "reader", token: TOKENS.reader, read: ["alpha"] },
      ],
    );
    service = await startHttpService(registry.file, registry.env);
    const writer = await set.http(service.url, TOKENS.writer);
    const reader = await set.http(service.url, TOKENS.reader);
    const started = await call(writer, "awr_session_start", {
      project: "alpha",
      request_id: "start-1",
      work: "W",
      conversation: "shared-conv",
      agent: "a",
      provider: "p",
      model: "m",
      expected_revision: revisionOf(root),
    });
    const sid = (started["session"] as { id: string }).id;

    const request = {
      project: "alpha",
      request_id: "observe-1",
      session: sid,
      expected_revision: revisionOf(root),
      observation: observation({ after_tokens: 40_000 }),
      policy: { post_compaction_threshold_percent: 30 },
    };
    const observed = await call(writer, "awr_compaction_observe", request);
    expect(observed).toMatchObject({
      state: "continue",
      post_compaction_percent: 20,
      policy: { post_compaction_threshold_percent: 30 },
      request_id: "observe-1",
    });
    const revision = revisionOf(root);
    const replayed = await call(writer, "awr_compaction_observe", request);
    expect(replayed).toMatchObject({
      replayed: true,
      recorded_event_id: observed["recorded_event_id"],
    });
    expect(revisionOf(root)).toBe(revision);

    const before = logicalState(root);
    const refused: Body = await call(
      reader,
      "awr_compaction_observe",
      {
        ...request,
        request_id: "observe-reader",
        observation: observation({ compaction_id: "native-2", sequence: 2 }),
      },
      true,
    );
    expect(refused["code"]).toBe("RuleViolation");
    const readerDefer: Body = await call(
      reader,
      "awr_compaction",
      {
        child_tool: "awr_compaction_defer",
        arguments: {
          project: "alpha",
          request_id: "defer-reader",
          session: sid,
          expected_revision: revision,
          observation_event_id: observed["observation_event_id"],
        },
      },
      true,
    );
    expect(readerDefer["code"]).toBe("RuleViolation");
    await failure(
      writer,
      "awr_compaction_observe",
      {
        ...request,
        request_id: "observe-bad",
        observation: { ...observation(), trigger: 3 },
      },
      "InvalidInput",
    );
    await failure(
      writer,
      "awr_compaction_get",
      { project: "alpha", session: "01NOSUCHSESSION" },
      "NotFound",
    );
    expect(logicalState(root)).toEqual(before);

    const grouped = await call(writer, "awr_compaction", {
      child_tool: "awr_compaction_get",
      arguments: { project: "alpha", session: sid, include_observation: true },
    });
    expect(grouped).toMatchObject({
      state: "continue",
      observation: { compaction_id: "native-1", after_tokens: 40_000 },
      previous_observation: null,
    });
    const deferred = await call(writer, "awr_compaction", {
      child_tool: "awr_compaction_defer",
      arguments: {
        project: "alpha",
        request_id: "defer-1",
        session: sid,
        expected_revision: revisionOf(root),
        observation_event_id: observed["observation_event_id"],
      },
    });
    expect(deferred).toMatchObject({ state: "deferred", request_id: "defer-1" });
  });
});
