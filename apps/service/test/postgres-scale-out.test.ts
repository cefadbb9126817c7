import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeProject, tempDir, writeRegistry } from "./support/projects.js";
import {
  httpClient,
  killAll,
  ok,
  type RunningService,
  startHttpService,
} from "./support/service-process.js";

const PG_URL = process.env["AWR_TEST_DATABASE_URL"];
if (!PG_URL && process.env["CI"] === "true") {
  throw new Error(
    "AWR_TEST_DATABASE_URL is not set under CI=true: the PostgreSQL scale-out suite must run",
  );
}

const TOKEN = "p".repeat(40);
const SCHEMA = `awr_service_${process.pid}_${Date.now().toString(36)}`;

let cleanup: () => Promise<void> = async () => undefined;
const services: RunningService[] = [];
const clients: Client[] = [];

describe.skipIf(!PG_URL)("two awr-mcp processes on one PostgreSQL ledger", () => {
  beforeAll(async () => {
    const temp = await tempDir("awr-service-pg-");
    cleanup = temp.cleanup;
    const env = { AWR_SERVICE_PG_URL: PG_URL as string };
    const project = await makeProject(temp.dir, "shared", {
      env: { ...process.env, ...env },
      manifest: `[project]
name = "shared"
authority_mode = "source_first"

[storage]
backend = "postgres"
url_env = "AWR_SERVICE_PG_URL"
schema = "${SCHEMA}"

[[sources]]
domain = "work"
role = "primary"
path = "work-ledger.yaml"
adapter = "yaml-ledger-v1"
`,
    });
    const registry = await writeRegistry(
      temp.dir,
      [{ key: "shared", ...project }],
      [{ id: "team", token: TOKEN, write: ["shared"] }],
    );
    for (let i = 0; i < 2; i++) {
      const service = await startHttpService(registry.file, { ...registry.env, ...env });
      services.push(service);
      clients.push(await httpClient(service.url, TOKEN));
    }
  });
  afterAll(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await Promise.allSettled(services.map((s) => s.stop()));
    killAll();
    await cleanup();
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
    await admin.end();
  });

  it("continues a session started on one process through the other, and replays across them", async () => {
    const [a, b] = clients as [Client, Client];
    const before = (await ok(a, "awr_project_status", { project: "shared", view: "full" }))[
      "project_revision"
    ] as number;
    const startArgs = {
      project: "shared",
      work: "W-1",
      conversation: "scale-out",
      agent: "a",
      provider: "p",
      model: "m",
      claim: true,
      expected_revision: before,
      request_id: "so-1",
    };
    const started = await ok(a, "awr_session_start", startArgs);
    const session = (started["session"] as { id: string }).id;
    const progressed = await ok(b, "awr_work_transition", {
      project: "shared",
      work: "W-1",
      action: "progress",
      session,
      reason: "picked up on the other process",
      expected_revision: started["project_revision"] as number,
      request_id: "so-2",
    });
    expect(progressed["project_revision"] as number).toBeGreaterThan(
      started["project_revision"] as number,
    );
    // The same request on the other process is a replay of the recorded result: no duplicate,
    // answered with the revision the shared ledger is at now (the transition's).
    const again = await ok(b, "awr_session_start", startArgs);
    expect(again["replayed"]).toBe(true);
    expect(again["session"]).toEqual(started["session"]);
    expect(again["receipt_project_revision"]).toBe(started["receipt_project_revision"]);
    expect(again["project_revision"]).toBe(progressed["project_revision"]);
  });

  it("loses no write and duplicates none when clients alternate and race across processes", async () => {
    const [a, b] = clients as [Client, Client];
    const start = (await ok(a, "awr_project_status", { project: "shared", view: "full" }))[
      "project_revision"
    ] as number;
    let revision = start;
    for (let i = 0; i < 6; i++) {
      const c = i % 2 === 0 ? a : b;
      const result = await ok(c, "awr_event_append", {
        project: "shared",
        event_type: "note",
        summary: `alternate ${i}`,
        expected_revision: revision,
        request_id: `alt-${i}`,
      });
      revision = result["project_revision"] as number;
    }
    for (let round = 0; round < 3; round++) {
      const results = await Promise.all(
        [a, b].map((c, i) =>
          c.callTool({
            name: "awr_event_append",
            arguments: {
              project: "shared",
              event_type: "note",
              summary: "race",
              expected_revision: revision,
              request_id: `pg-race-${round}-${i}`,
            },
          }),
        ),
      );
      expect(results.filter((r) => !r.isError)).toHaveLength(1);
      expect(results.find((r) => r.isError)?.structuredContent).toMatchObject({
        code: "RevisionConflict",
        details: { expected: revision },
      });
      const winner = results.find((r) => !r.isError);
      revision =
        (winner?.structuredContent as { project_revision: number } | undefined)?.project_revision ??
        -1;
    }
    // Every write is recorded exactly once in the shared journal, whichever process ran it.
    for (let i = 0; i < 6; i++) {
      const receipt = await ok(i % 2 === 0 ? b : a, "awr_operation_get", {
        project: "shared",
        request_id: `alt-${i}`,
      });
      expect(receipt["outcome"]).toBe("recorded");
    }
    expect(
      (await ok(b, "awr_project_status", { project: "shared", view: "full" }))["project_revision"],
    ).toBe(revision);
  });
});
