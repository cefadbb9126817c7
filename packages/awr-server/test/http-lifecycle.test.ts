import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUSY_ERROR_CODE, loadRegistry, startHttpService } from "@awr/awr-server";
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
    const refused = await rawRequest(fixture.service.url, {
      headers: mcpHeaders(TOKENS.engineering),
      body: initializeBody,
    }).catch((error: NodeJS.ErrnoException) => ({ status: error.code }));
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
      client.callTool({ name: "awr_project_status", arguments: { project: "billing" } }),
    );
    while (running < 64) await new Promise((resolve) => setTimeout(resolve, 10));
    const busy = await client
      .callTool({ name: "awr_project_status", arguments: { project: "billing" } })
      .catch((error: unknown) => error);
    expect((busy as McpError).code).toBe(BUSY_ERROR_CODE);
    release.open();
    const results = await Promise.all(calls);
    expect(results.every((r) => !r.isError)).toBe(true);
  });

  it("re-checks identity on every call: a swapped project fails alone", async () => {
    fixture = await startFixture(fakeBackend());
    const client = await fixture.connect(TOKENS.engineering);
    const status = (project: string) =>
      client.callTool({ name: "awr_project_status", arguments: { project } });
    expect((await status("billing")).isError).toBeFalsy();
    await initFakeProject(join(fixture.dir, "billing"), "01SOMEONE-ELSE");
    const swapped = await status("billing");
    expect(swapped.structuredContent).toMatchObject({
      code: "RuleViolation",
      message: expect.stringMatching(/"billing" failed its identity check/),
    });
    expect((await status("support")).isError).toBeFalsy();
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
