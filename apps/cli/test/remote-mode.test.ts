import { readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { HttpService } from "@awr/awr-server";
import { LATEST_PROTOCOL_VERSION } from "@awr/mcp-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awr, demoProject, removeTemps } from "./support/cli-harness.js";
import { remote, startService, TOKEN_ENV } from "./support/service.js";

let root: string;
let service: HttpService;

beforeAll(async () => {
  root = await demoProject();
  service = await startService(root);
});

afterAll(async () => {
  await service?.close({ graceMs: 1000 });
  await removeTemps();
});

describe("remote mode against a shared AWR service", () => {
  it("prints the same JSON as local mode for the same state", async () => {
    const local = await awr(["--project", root, "--json", "status"]);
    const far = await awr([...remote(service), "status", "--json"], { env: TOKEN_ENV });
    expect(far.stderr).toBe("");
    expect(far.code).toBe(0);
    // A remote read is a tool read: it checks the sources instead of refreshing them, and says so.
    const policy = ["freshness_basis", "source_refresh_performed", "read_only"];
    const without = (value: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(value).filter(([key]) => !policy.includes(key)));
    expect(without(far.json())).toEqual(without(local.json()));
    expect(far.json()).toMatchObject({
      freshness_basis: "source_verified_readonly",
      read_only: true,
    });
  });

  it("prints the same human output as local mode", async () => {
    const local = await awr(["ready"], { cwd: root });
    const far = await awr(["ready", ...remote(service)], { env: TOKEN_ENV });
    expect(far.code).toBe(0);
    expect(far.stdout).toBe(local.stdout);
  });

  it("writes with a generated request id that operation get can find", async () => {
    const write = await awr(
      [...remote(service), "--json", "event", "append", "note.added", "--summary", "from afar"],
      {
        env: TOKEN_ENV,
      },
    );
    expect(write.stderr).toBe("");
    expect(write.code).toBe(0);
    const explicit = await awr(
      [
        ...remote(service),
        "--json",
        "event",
        "append",
        "note.added",
        "--summary",
        "again",
        "--request-id",
        "remote-req-1",
      ],
      { env: TOKEN_ENV },
    );
    expect(explicit.code).toBe(0);
    const found = await awr([...remote(service), "--json", "operation", "get", "remote-req-1"], {
      env: TOKEN_ENV,
    });
    expect(found.code).toBe(0);
    expect(JSON.stringify(found.json())).toContain("remote-req-1");
  });

  it("turns a stale source into the exact CLI command that fixes it", async () => {
    const file = join(root, "work-ledger.yaml");
    const source = await readFile(file, "utf8");
    await writeFile(file, `${source}\n# edited by hand\n`);
    try {
      const revision = (await awr(["--project", root, "--json", "source", "list"])).json()[
        "project_revision"
      ];
      const stale = await awr([...remote(service), "status"], { env: TOKEN_ENV });
      expect(stale.code).toBe(1);
      const lines = stale.stderr.split("\n");
      expect(lines[0]).toMatch(/^error \[SourceStale\]: /);
      expect(stale.stderr).not.toMatch(/awr_[a-z_]+/);
      expect(lines.at(-2)).toBe(
        `next: The planning sources changed since the last index: run \`awr source reindex --expected-revision ${revision}\`, then retry.`,
      );
    } finally {
      await writeFile(file, source);
    }
  });

  it("passes a read-only client's refusal through with its code", async () => {
    const result = await awr(
      [...remote(service, "reader"), "--json", "event", "append", "note.added", "--summary", "x"],
      { env: TOKEN_ENV },
    );
    expect(result.code).toBe(1);
    expect(result.error().code).toBe("RuleViolation");
    // The service's message names the fix; no per-code step fits every RuleViolation, so the
    // human output prints none rather than a wrong one.
    const human = await awr(
      [...remote(service, "reader"), "event", "append", "note.added", "--summary", "x"],
      { env: TOKEN_ENV },
    );
    expect(human.code).toBe(1);
    expect(human.stderr).toMatch(/^error \[RuleViolation\]: read-only access to project /);
    expect(human.stderr).not.toMatch(/^next:/m);
  });

  it("names the keys the token may use when --project-key is missing", async () => {
    const result = await awr(
      ["--url", service.url, "--token-env", "AWR_TEST_WRITER", "--json", "status"],
      {
        env: TOKEN_ENV,
      },
    );
    expect(result.code).toBe(2);
    expect(result.error().message).toContain("shop");
  });

  it("explains a refused credential", async () => {
    const result = await awr([...remote(service), "--json", "status"], {
      env: { AWR_TEST_WRITER: "wrong-token-wrong-token-wrong-token-0000" },
    });
    expect(result.code).toBe(1);
    expect(result.error()).toMatchObject({
      code: "RemoteError",
      message: expect.stringContaining("401"),
    });
  });

  it("is a usage error when the token variable is not set", async () => {
    const result = await awr([...remote(service), "--json", "status"]);
    expect(result.code).toBe(2);
    expect(result.error().message).toContain("AWR_TEST_WRITER");
  });
});

describe("cancellation", () => {
  let hanging: Server;
  let url: string;
  const seen: string[] = [];
  let onCall: (() => void) | undefined;

  beforeAll(async () => {
    // A minimal MCP endpoint that completes the handshake and never answers tools/call.
    hanging = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        const message = JSON.parse(body) as { id?: number; method: string };
        seen.push(message.method);
        if (message.method === "initialize") {
          res.writeHead(200, { "Content-Type": "application/json" }).end(
            JSON.stringify({
              jsonrpc: "2.0",
              id: message.id,
              result: {
                protocolVersion: LATEST_PROTOCOL_VERSION,
                capabilities: { tools: {} },
                serverInfo: { name: "hanging", version: "1.0.0" },
              },
            }),
          );
        } else if (message.method === "tools/call") {
          onCall?.();
          req.socket.on("close", () => res.destroy());
        } else {
          res.writeHead(202).end();
        }
      });
    });
    await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/mcp`;
  });

  afterAll(async () => {
    hanging.closeAllConnections();
    await new Promise<void>((resolve) => hanging.close(() => resolve()));
  });

  it("stops a remote call in flight when the run is aborted, exiting 130", async () => {
    const controller = new AbortController();
    onCall = () => controller.abort(new Error("test abort"));
    const result = await awr(["--url", url, "--project-key", "shop", "--json", "status"], {
      env: { AWR_TOKEN: "x".repeat(40) },
      signal: controller.signal,
    });
    expect(result.code).toBe(130);
    expect(result.error().code).toBe("Cancelled");
    expect(seen).toContain("tools/call");
  });

  it("does nothing when aborted before it starts", async () => {
    const controller = new AbortController();
    controller.abort(new Error("early"));
    const result = await awr(["--url", url, "--project-key", "shop", "--json", "status"], {
      env: { AWR_TOKEN: "x".repeat(40) },
      signal: controller.signal,
    });
    expect(result.code).toBe(130);
    expect(result.error().code).toBe("Cancelled");
  });
});

describe("reviewed source changes in remote mode", () => {
  it("previews and applies a work edit as the token's client, whose outcome it alone reads", async () => {
    const edit = [
      "work",
      "edit",
      "W-3",
      "--request-key",
      "far-edit",
      "--actor",
      "builder",
      "--reason",
      "Name the next step",
      "--next-action",
      "Choose the payment provider",
    ];
    const before = await readFile(join(root, "work-ledger.yaml"), "utf8");
    const preview = await awr([...remote(service), "--json", ...edit], { env: TOKEN_ENV });
    expect(preview.code, preview.stderr).toBe(0);
    const answer = preview.json();
    expect(answer).toMatchObject({ status: "preview", change_kind: "work_edit" });
    expect(await readFile(join(root, "work-ledger.yaml"), "utf8")).toBe(before);
    const change = answer["change"] as Record<string, unknown>;
    const applied = await awr(
      [
        ...remote(service),
        "--json",
        ...edit,
        "--accept",
        "--source-fingerprint",
        change["source_fingerprint"] as string,
        "--expected-preview",
        answer["preview_fingerprint"] as string,
        "--expected-revision",
        String(answer["project_revision"]),
      ],
      { env: TOKEN_ENV },
    );
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.json()).toMatchObject({ status: "completed", write_outcome: "applied" });
    expect(await readFile(join(root, "work-ledger.yaml"), "utf8")).toContain(
      "next_action: Choose the payment provider",
    );
    const far = await awr([...remote(service), "--json", "host", "status", "--key", "far-edit"], {
      env: TOKEN_ENV,
    });
    expect(far.json()).toMatchObject({ found: true, change_kind: "work_edit" });
    // The local CLI is client stdio: the writer's request is not its own.
    const local = await awr(["--project", root, "--json", "host", "status", "--key", "far-edit"]);
    expect(local.json()).toMatchObject({ found: false });
  });
});
