import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BUSY_ERROR_CODE,
  type LedgerCallOptions,
  loadRegistry,
  RegistryError,
  startHttpService,
} from "@awr/awr-server";
import type { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { fakeBackend, initFakeProject } from "./support/fake-backend.js";
import {
  type HttpFixture,
  initializeBody,
  mcpHeaders,
  rawRequest,
  startFixture,
  TOKENS,
} from "./support/http-fixture.js";

let fixture: HttpFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

describe("the shared HTTP service's lifecycle", () => {
  it("lets an in-flight call finish on close, refuses new work, and closes the ledgers", async () => {
    const release = gate();
    const entered = gate();
    const backend = fakeBackend(async (method) => {
      if (method === "awr_work_get") {
        entered.open();
        await release.opened;
      }
      return { project_revision: 3 };
    });
    fixture = await startFixture(backend);
    const client = await fixture.connect(TOKENS.engineering);
    const slow = client.callTool({
      name: "awr_work_get",
      arguments: { project: "billing", work: "W" },
    });
    await entered.opened;
    const closing = fixture.service.close({ graceMs: 10_000 });
    const refused = await fixture
      .send({
        token: TOKENS.engineering,
        body: initializeBody,
      })
      .catch((error: NodeJS.ErrnoException) => ({ status: error.code }));
    expect([503, "ECONNREFUSED", "ECONNRESET"]).toContain(refused.status);
    release.open();
    const result = await slow;
    expect(result.structuredContent).toEqual({ project_revision: 3 });
    await closing;
    expect(backend.closed.sort()).toEqual([`${fixture.dir}/billing`, `${fixture.dir}/support`]);
  });

  it("answers the 65th concurrent call with a busy error and runs the first 64", async () => {
    const release = gate();
    let running = 0;
    const backend = fakeBackend(async () => {
      running += 1;
      await release.opened;
      return { project_revision: 1 };
    });
    fixture = await startFixture(backend);
    const client = await fixture.connect(TOKENS.engineering);
    const calls = Array.from({ length: 64 }, () =>
      client.callTool({
        name: "awr_project_status",
        arguments: { project: "billing", view: "full" },
      }),
    );
    while (running < 64) await new Promise((resolve) => setTimeout(resolve, 10));
    const busy = await client
      .callTool({ name: "awr_project_status", arguments: { project: "billing", view: "full" } })
      .catch((error: unknown) => error);
    expect((busy as McpError).code).toBe(BUSY_ERROR_CODE);
    release.open();
    const results = await Promise.all(calls);
    expect(results.every((r) => !r.isError)).toBe(true);
  });

  it("re-checks identity on every call: a swapped project fails alone", async () => {
    const logged: string[] = [];
    fixture = await startFixture(fakeBackend(), { log: (line) => logged.push(line) });
    const client = await fixture.connect(TOKENS.engineering);
    const status = (project: string) =>
      client.callTool({ name: "awr_project_status", arguments: { project, view: "full" } });
    expect((await status("billing")).isError).toBeFalsy();
    await initFakeProject(join(fixture.dir, "billing"), "01SOMEONE-ELSE");
    const swapped = await status("billing");
    expect(swapped.structuredContent).toMatchObject({
      code: "RuleViolation",
      message: expect.stringMatching(/"billing" failed its identity check/),
    });
    expect((await status("support")).isError).toBeFalsy();
    // The operator is told once, not once per refused call, and again when it is put back.
    expect((await status("billing")).isError).toBe(true);
    const failed = logged.filter((line) => line.includes("failed its identity check"));
    expect(failed).toEqual([
      expect.stringMatching(
        /^project "billing" failed its identity check: .*\(it holds project 01SOMEONE-ELSE\); its calls are refused/,
      ),
    ]);
    await initFakeProject(join(fixture.dir, "billing"), "01BILLING");
    expect((await status("billing")).isError).toBeFalsy();
    expect(logged).toContain(
      'project "billing" passes its identity check again: its calls are served',
    );
  });

  it("rejects with the listen error when the port is taken, closing the ledgers it opened", async () => {
    fixture = await startFixture(fakeBackend());
    const second = fakeBackend();
    const error = await startHttpService({
      registry: fixture.registry,
      backend: second,
      host: "127.0.0.1",
      port: fixture.service.port,
    }).then(
      () => undefined,
      (e: unknown) => e as NodeJS.ErrnoException,
    );
    expect(error?.code).toBe("EADDRINUSE");
    expect(second.opened).toHaveLength(2);
    expect(second.closed.sort()).toEqual(second.opened.sort());
  });

  it("refuses a registry built in code that lists one project_id under two keys", async () => {
    fixture = await startFixture(fakeBackend());
    const copy = join(fixture.dir, "billing-copy");
    await initFakeProject(copy, "01BILLING");
    const backend = fakeBackend();
    const error = await startHttpService({
      registry: {
        ...fixture.registry,
        projects: [
          ...fixture.registry.projects,
          { key: "billing-copy", root: copy, project_id: "01BILLING" },
        ],
      },
      backend,
      host: "127.0.0.1",
      port: 0,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RegistryError);
    expect((error as RegistryError).problems).toEqual([
      expect.stringMatching(
        /^projects: "billing" and "billing-copy" have the same project_id "01BILLING" .*Re-initialise the copy so it gets its own identity: .*`awr init --accept`/,
      ),
    ]);
    expect(backend.opened).toEqual([]);
  });

  it("cannot cancel a running call with notifications/cancelled (stateless), but a disconnect aborts it", async () => {
    let entered = gate();
    let release = gate();
    const signals: AbortSignal[] = [];
    fixture = await startFixture(
      fakeBackend(async (_tool, _input, _caller, _root, options: LedgerCallOptions) => {
        if (options.signal) signals.push(options.signal);
        entered.open();
        await release.opened;
        return { project_revision: 3 };
      }),
    );
    const { url } = fixture.service;
    const headers = mcpHeaders(TOKENS.engineering);
    const call = (id: number) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "awr_work_get", arguments: { project: "billing", work: "W" } },
      });

    // The cancellation arrives as its own POST, answered by a fresh server that never saw the
    // call: the call runs on and answers.
    const running = rawRequest(url, { headers, body: call(77) });
    await entered.opened;
    const cancel = await rawRequest(url, {
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 77, reason: "user cancelled" },
      }),
    });
    expect(cancel.status).toBe(202);
    expect(signals[0]?.aborted).toBe(false);
    release.open();
    expect(JSON.parse((await running).body)).toMatchObject({
      id: 77,
      result: { structuredContent: { project_revision: 3 } },
    });

    // A client that goes away aborts its call's signal, which the ledger honours until the
    // write begins.
    entered = gate();
    release = gate();
    const gone = request(new URL(url), { method: "POST", headers });
    gone.on("error", () => {});
    gone.end(call(78));
    await entered.opened;
    gone.destroy();
    while (signals[1]?.aborted !== true) await new Promise((resolve) => setTimeout(resolve, 10));
    release.open();
    // The cut exchange is over: a graceful close waits for the ledger call, not the grace period.
    const started = Date.now();
    await fixture.service.close({ graceMs: 5_000 });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("rejects startup with the abort reason when cancelled", async () => {
    const controller = new AbortController();
    const reason = new Error("shutting down before start");
    controller.abort(reason);
    const dir = await realpath(await mkdtemp(join(tmpdir(), "awr-abort-")));
    try {
      await initFakeProject(join(dir, "p"), "01P");
      const file = join(dir, "r.toml");
      await writeFile(
        file,
        `version = 1\n[[projects]]\nkey = "p"\nroot = "${join(dir, "p")}"\nproject_id = "01P"\n[[clients]]\nid = "c"\ntoken_env = "T"\nread = ["p"]\n`,
      );
      const backend = fakeBackend();
      const registry = await loadRegistry(
        file,
        { T: "t".repeat(32) },
        { readIdentity: backend.readIdentity },
      );
      await expect(
        startHttpService({
          registry,
          backend,
          host: "127.0.0.1",
          port: 0,
          signal: controller.signal,
        }),
      ).rejects.toBe(reason);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
