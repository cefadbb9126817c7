import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import { largeGoalsManifest, makeProject, tempDir } from "./support/projects.js";
import { SERVICE_DIR, serviceCommand } from "./support/service-process.js";

const HEADINGS = 60_000;
const MANIFEST = largeGoalsManifest("large");

/** Resolves once the process with `pid` is gone. */
async function exited(pid: number): Promise<void> {
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

// The service keeps serving, and reacts to SIGTERM, while a large source is being reindexed:
// the parse runs in the ledger's worker thread and the projection is written in slices, and
// closing the ledger (at the end of the drain) stops a parse still running.
describe("awr-mcp over stdio, SIGTERM in the middle of a large reindex", () => {
  it("answers another call, logs the drain at once, and exits", async () => {
    const temp = await tempDir("awr-service-sigterm-");
    cleanup = temp.cleanup;
    const { root } = await makeProject(temp.dir, "large", { manifest: MANIFEST });
    const sections = Array.from(
      { length: HEADINGS },
      (_, i) => `## Goal ${i} {#g${i}}\n\nSection ${i} of a large plan.\n`,
    );
    await writeFile(join(root, "GOALS.md"), sections.join("\n"));

    const { command, args } = serviceCommand(["--project", root]);
    const transport = new StdioClientTransport({
      command,
      args,
      cwd: SERVICE_DIR,
      stderr: "pipe",
      env: process.env as Record<string, string>,
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = new Client({ name: "sigterm-test", version: "1.0.0" });
    await client.connect(transport);
    const pid = transport.pid as number;

    let reindexSettled = false;
    const reindex = client
      .callTool({ name: "awr_source_reindex", arguments: { expected_revision: 1 } })
      .then(
        (r) => r,
        (e: unknown) => e,
      )
      .finally(() => {
        reindexSettled = true;
      });
    // Another call is answered while the reindex is still running.
    const status = await client.callTool({
      name: "awr_project_status",
      arguments: { view: "full" },
    });
    expect(status).toBeDefined();
    expect(reindexSettled).toBe(false);

    const signalled = performance.now();
    process.kill(pid, "SIGTERM");
    while (!/SIGTERM: finishing in-flight calls/.test(stderr)) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Reacts at once (a blocked event loop would take as long as the parse), then drains.
    expect(performance.now() - signalled).toBeLessThan(5000);
    await exited(pid);
    await reindex;
    expect(performance.now() - signalled).toBeLessThan(30_000);
    await client.close().catch(() => undefined);
  }, 120_000);
});
