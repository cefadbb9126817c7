import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { makeProject, tempDir, writeRegistry } from "./support/projects.js";
import { fails, httpClient, killAll, ok, startHttpService } from "./support/service-process.js";

const TOKENS = { eng: "e".repeat(40), other: "o".repeat(40) };

let dir: string;
let cleanup: () => Promise<void>;
let registry: { file: string; env: Record<string, string> };
const clients: Client[] = [];

async function connect(url: string, token: string) {
  const client = await httpClient(url, token);
  clients.push(client);
  return client;
}

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("awr-service-restart-"));
  const durable = await makeProject(dir, "durable");
  const crashA = await makeProject(dir, "crash-a");
  const crashB = await makeProject(dir, "crash-b");
  registry = await writeRegistry(
    dir,
    [
      { key: "durable", ...durable },
      { key: "crash-a", ...crashA },
      { key: "crash-b", ...crashB },
    ],
    [
      { id: "eng", token: TOKENS.eng, write: ["durable", "crash-a", "crash-b"] },
      { id: "other", token: TOKENS.other, write: ["durable"] },
    ],
  );
});
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
  killAll();
});
afterAll(async () => {
  await cleanup?.();
});

const revisionOf = async (c: Client, project = "durable") =>
  (await ok(c, "awr_project_status", { project, view: "full" }))["project_revision"] as number;

describe("awr-mcp across restarts", () => {
  it("keeps sessions, claims and waits through a service restart", async () => {
    const first = await startHttpService(registry.file, registry.env);
    const eng = await connect(first.url, TOKENS.eng);
    const started = await ok(eng, "awr_session_start", {
      project: "durable",
      work: "W-1",
      conversation: "survivor",
      agent: "a",
      provider: "p",
      model: "m",
      claim: true,
      expected_revision: await revisionOf(eng),
      request_id: "restart-1",
    });
    const session = (started["session"] as { id: string }).id;
    await ok(eng, "awr_session_wait", {
      project: "durable",
      session,
      question: "still there?",
      context_hash: "h",
      digest: "before restart",
      next_action: "wait for the answer",
      expected_revision: started["project_revision"] as number,
      request_id: "restart-2",
    });
    expect(await first.stop("SIGTERM")).toBe(0);

    const second = await startHttpService(registry.file, registry.env);
    const again = await connect(second.url, TOKENS.eng);
    const view = await ok(again, "awr_session_get", {
      project: "durable",
      conversation: "survivor",
    });
    expect(JSON.stringify(view)).toContain(session);
    expect(JSON.stringify(view)).toContain("waiting_user");
    const other = await connect(second.url, TOKENS.other);
    const conflict = await fails(other, "awr_session_start", {
      project: "durable",
      work: "W-1",
      conversation: "intruder",
      agent: "a",
      provider: "p",
      model: "m",
      claim: true,
      expected_revision: await revisionOf(other),
      request_id: "restart-3",
    });
    expect(conflict.code).toBe("ClaimConflict");
    await second.stop();
  });

  // Both crashes happen first and are recovered by one restarted service, so the SQLite lock
  // leases they leave behind expire together (the ledger's lease is 30 s; see the README).
  it("settles writes whose receipts were lost to kill -9, at either fault point", {
    timeout: 120_000,
  }, async () => {
    const cases = [
      { project: "crash-a", fault: "after_domain", outcome: "committed" },
      { project: "crash-b", fault: "after_begin", outcome: "not_committed" },
    ] as const;
    const revisions: Record<string, number> = {};
    for (const { project, fault } of cases) {
      const doomed = await startHttpService(registry.file, {
        ...registry.env,
        AWR_TEST_FAULT: fault,
      });
      const eng = await connect(doomed.url, TOKENS.eng);
      revisions[project] = await revisionOf(eng, project);
      const answer = await eng
        .callTool({
          name: "awr_event_append",
          arguments: {
            project,
            event_type: "note",
            summary: "lost receipt",
            expected_revision: revisions[project],
            request_id: `lost-${fault}`,
          },
        })
        .then(
          () => "answered",
          () => "no answer",
        );
      expect(answer).toBe("no answer");
      expect(await doomed.exited).toBe("SIGKILL");
    }

    const healed = await startHttpService(registry.file, registry.env);
    const eng = await connect(healed.url, TOKENS.eng);
    await Promise.all(
      cases.map(async ({ project, fault, outcome }) => {
        const requestId = `lost-${fault}`;
        const pending = await ok(eng, "awr_operation_get", { project, request_id: requestId });
        expect(pending["outcome"]).toBe("unknown");
        const retried = await fails(eng, "awr_event_append", {
          project,
          event_type: "note",
          summary: "lost receipt",
          expected_revision: revisions[project],
          request_id: requestId,
        });
        expect(JSON.stringify(retried)).toContain("unknown");
        const recovered = await ok(eng, "awr_operation_recover", {
          project,
          request_id: requestId,
          expected_revision: await revisionOf(eng, project),
        });
        expect(recovered["write_outcome"]).toBe(outcome);
      }),
    );
    await healed.stop();
  });
});
