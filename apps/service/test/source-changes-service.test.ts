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
 * Reviewed source changes over a real MCP server: stdio (one local client) and the shared HTTP
 * service (the change belongs to the authenticated client; a read-only client cannot apply).
 */

const TOKENS = { alice: "a".repeat(48), bob: "b".repeat(48), reader: "r".repeat(48) };
const REASON = "The form is written; record the next step";
const AFTER = WORK_LEDGER.replace(
  "next_action: Write the payment form",
  "next_action: Test the payment form",
);
const CHANGE = { kind: "work_edit", work: "W-1", fields: { next_action: "Test the payment form" } };

let dir: string;
let cleanup: () => Promise<void>;
const clients: Client[] = [];

/** A failed call's error: `{code, message}`, or the error of a result that came with one. */
async function refused(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, JSON.stringify(result.structuredContent)).toBe(true);
  const body = result.structuredContent as Record<string, unknown>;
  return ((body["error"] as Record<string, unknown> | undefined) ?? body) as {
    code: string;
    message: string;
  };
}

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("awr-service-changes-"));
});
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  killAll();
  await cleanup?.();
});

describe("reviewed source changes over stdio", () => {
  it("previews without writing, applies the review at the same revision, replays it", async () => {
    const { root } = await makeProject(dir, "local");
    const file = join(root, "work-ledger.yaml");
    const { client } = await stdioClient(root);
    clients.push(client);
    const status = await ok(client, "awr_project_status", {});
    const revision = status["project_revision"] as number;
    const preview = await ok(client, "awr_change_preview", {
      request_id: "stdio-1",
      reason: REASON,
      change: CHANGE,
    });
    expect(preview).toMatchObject({
      status: "preview",
      project_revision: revision,
      read_only: true,
      journal: "source_change",
      change_kind: "work_edit",
    });
    expect(await readFile(file, "utf8")).toBe(WORK_LEDGER);
    const input = {
      request_id: "stdio-1",
      reason: REASON,
      change: preview["change"],
      expected_revision: revision,
      expected_preview: preview["preview_fingerprint"],
    };
    // No lifecycle bookkeeping between preview and apply: the preview's revision still applies.
    const applied = await ok(client, "awr_change_apply", input);
    expect(applied).toMatchObject({
      status: "completed",
      source_write_performed: true,
      project_revision: revision + 1,
    });
    expect(await readFile(file, "utf8")).toBe(AFTER);
    const again = await ok(client, "awr_change_apply", input);
    expect(again).toMatchObject({ status: "completed", historical_outcome: true });
    expect(
      await ok(client, "awr_change_status", { request_id: "stdio-1", kind: "work_edit" }),
    ).toMatchObject({ found: true, status: "completed", current_source: "after" });
    expect((await ok(client, "awr_project_status", {}))["project_revision"]).toBe(revision + 1);
  }, 60_000);
});

describe("reviewed source changes over the shared service", () => {
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

  it("keeps a change to its client: another cannot apply or read it, a reader cannot apply", async () => {
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
    const revision = (await ok(alice, "awr_project_status", { project: "alpha" }))[
      "project_revision"
    ] as number;
    const preview = await ok(alice, "awr_change_preview", {
      project: "alpha",
      request_id: "shared-1",
      reason: REASON,
      change: CHANGE,
    });
    const input = {
      project: "alpha",
      request_id: "shared-1",
      reason: REASON,
      change: preview["change"],
      expected_revision: revision,
      expected_preview: preview["preview_fingerprint"],
    };
    expect((await refused(bob, "awr_change_apply", input)).code).toBe("SourceConflict");
    expect((await refused(reader, "awr_change_apply", input)).code).toBe("RuleViolation");
    expect(await readFile(file, "utf8")).toBe(WORK_LEDGER);

    expect(await ok(alice, "awr_change_apply", input)).toMatchObject({ status: "completed" });
    expect(await readFile(file, "utf8")).toBe(AFTER);
    const statusArgs = { project: "alpha", request_id: "shared-1", kind: "work_edit" };
    expect(await ok(alice, "awr_change_status", statusArgs)).toMatchObject({
      found: true,
      status: "completed",
    });
    expect(await ok(bob, "awr_change_status", statusArgs)).toMatchObject({ found: false });
    expect(await ok(reader, "awr_change_status", statusArgs)).toMatchObject({ found: false });
    expect(
      (
        await refused(bob, "awr_change_recover", {
          ...statusArgs,
          expected_revision: revision + 1,
        })
      ).code,
    ).toBe("NotFound");
    // Bob's own change under the same request_id is his own identity, with its own review.
    const his = await ok(bob, "awr_change_preview", {
      project: "alpha",
      request_id: "shared-1",
      reason: REASON,
      change: { ...CHANGE, fields: { next_action: "Ship it" } },
    });
    expect(his["preview_fingerprint"]).not.toBe(preview["preview_fingerprint"]);
  }, 60_000);
});
