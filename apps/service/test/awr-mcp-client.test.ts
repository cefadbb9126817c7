import { createTransport, MCPClient } from "@awr/mcp-client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type CallTool, runAgentDay } from "./support/agent-day.js";
import { makeProject, tempDir, writeRegistry } from "./support/projects.js";
import {
  killAll,
  type RunningService,
  SERVICE_DIR,
  serviceCommand,
  startHttpService,
} from "./support/service-process.js";

const TOKEN = "m".repeat(40);
const CLIENT_INFO = { name: "awr-e2e", version: "1.0.0" };

let dir: string;
let cleanup: () => Promise<void>;
let service: RunningService;
let stdioRoot: string;
const open: MCPClient[] = [];

const caller =
  (client: MCPClient): CallTool =>
  (name, args) =>
    client.callTool(name, args);

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("awr-service-own-client-"));
  const shared = await makeProject(dir, "shared");
  stdioRoot = (await makeProject(dir, "local")).root;
  const registry = await writeRegistry(
    dir,
    [{ key: "shared", ...shared }],
    [{ id: "own", token: TOKEN, write: ["shared"] }],
  );
  service = await startHttpService(registry.file, registry.env);
});
afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await service?.stop();
  killAll();
  await cleanup?.();
});

describe("this repository's @awr/mcp-client against awr-mcp", () => {
  it("runs an agent's whole day over shared HTTP", async () => {
    const client = new MCPClient(
      createTransport({
        type: "http",
        url: service.url,
        headers: { Authorization: `Bearer ${TOKEN}` },
      }),
      CLIENT_INFO,
    );
    open.push(client);
    await client.connect();
    expect((await client.listTools()).map((t) => t.name)).toContain("awr_projects_list");
    await runAgentDay(caller(client), { project: "shared", prefix: "own-http" });
  });

  it("runs an agent's whole day over stdio", async () => {
    const { command, args } = serviceCommand(["--project", stdioRoot]);
    const client = new MCPClient(createTransport({ command, args, cwd: SERVICE_DIR }), CLIENT_INFO);
    open.push(client);
    await client.connect();
    // Grouped discovery by default: the 8 domain tools; the flat names stay callable.
    expect(await client.listTools()).toHaveLength(8);
    await runAgentDay(caller(client), { prefix: "own-stdio" });
  });
});
