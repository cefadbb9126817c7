import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeProject, tempDir, writeRegistry } from "./support/projects.js";
import {
  killAll,
  type RunningService,
  SERVICE_DIR,
  serviceCommand,
  startHttpService,
} from "./support/service-process.js";

const run = promisify(execFile);
const INSPECTOR = fileURLToPath(
  new URL("../node_modules/@modelcontextprotocol/inspector/cli/build/cli.js", import.meta.url),
);
const TOKEN = "i".repeat(40);

let dir: string;
let cleanup: () => Promise<void>;
let root: string;
let service: RunningService;

/** Runs `mcp-inspector --cli …` and parses the JSON it prints. */
async function inspector(args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, [INSPECTOR, "--cli", ...args], {
    cwd: SERVICE_DIR,
    timeout: 60_000,
  });
  return JSON.parse(stdout.slice(stdout.indexOf("{"))) as Record<string, unknown>;
}

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("awr-service-inspector-"));
  const project = await makeProject(dir, "inspected");
  root = project.root;
  const registry = await writeRegistry(
    dir,
    [{ key: "inspected", ...project }],
    [{ id: "inspector", token: TOKEN, read: ["inspected"] }],
  );
  service = await startHttpService(registry.file, registry.env);
});
afterAll(async () => {
  await service?.stop();
  killAll();
  await cleanup?.();
});

describe("the MCP Inspector CLI (1.0.3)", () => {
  it("lists and calls a tool over stdio", async () => {
    const { command, args } = serviceCommand(["--project", root]);
    const listed = await inspector([command, ...args, "--method", "tools/list"]);
    // Grouped discovery lists awr_query; awr_work_get, its child, stays callable by name.
    expect((listed["tools"] as { name: string }[]).map((t) => t.name)).toContain("awr_query");
    const called = await inspector([
      command,
      ...args,
      "--method",
      "tools/call",
      "--tool-name",
      "awr_work_get",
      "--tool-arg",
      "work=W-1",
    ]);
    expect(called["isError"]).toBeFalsy();
    expect(JSON.stringify(called["structuredContent"])).toContain("Build checkout");
  });

  it("lists and calls a tool over Streamable HTTP with a bearer header", async () => {
    const common = [
      service.url,
      "--transport",
      "http",
      "--header",
      `Authorization: Bearer ${TOKEN}`,
    ];
    const listed = await inspector([...common, "--method", "tools/list"]);
    expect(listed["tools"] as unknown[]).toHaveLength(9);
    const called = await inspector([
      ...common,
      "--method",
      "tools/call",
      "--tool-name",
      "awr_work_get",
      "--tool-arg",
      "project=inspected",
      "work=W-1",
    ]);
    expect(called["isError"]).toBeFalsy();
    expect(JSON.stringify(called["structuredContent"])).toContain("Build checkout");
  });
});
