import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, describe, expect, it } from "vitest";
import { testProgram } from "../../../scripts/test/test-programs.mjs";
import { awr, demoProject, removeTemps, tempDir } from "./support/cli-harness.js";

/**
 * `awr init --accept` ends with stdio configurations for Claude Code, Cursor and Codex that start
 * `awr-mcp --project <the project>`: pasted as printed, they start a server that serves it.
 */

afterAll(removeTemps);

/** A directory holding an executable `awr-mcp` (this run's bundle), for PATH. */
async function binDirWithAwrMcp(): Promise<string> {
  const bin = await tempDir("awr-bin-");
  const program = join(bin, "awr-mcp");
  await writeFile(
    program,
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(testProgram("awr-mcp"))} "$@"\n`,
  );
  await chmod(program, 0o755);
  return bin;
}

/** The line after `heading` in the human output. */
function lineAfter(output: string, heading: string): string {
  const lines = output.split("\n");
  const at = lines.findIndex((line) => line.trim() === heading);
  expect(at, `no "${heading}" in:\n${output}`).toBeGreaterThanOrEqual(0);
  return (lines[at + 1] as string).trim();
}

describe("awr init --accept prints stdio host configurations", () => {
  it("names awr-mcp's absolute path and the project, and the Claude Code config starts it", async () => {
    const root = await demoProject({ init: false });
    const bin = await binDirWithAwrMcp();
    const result = await awr(["--project", root, "init", "--accept"], {
      env: { PATH: `${bin}:${process.env["PATH"]}` },
    });
    expect(result.code, result.stderr).toBe(0);
    const program = join(bin, "awr-mcp");
    const claude = JSON.parse(lineAfter(result.stdout, "Claude Code, .mcp.json in the project:"));
    expect(claude).toEqual({
      mcpServers: { awr: { type: "stdio", command: program, args: ["--project", root] } },
    });
    const cursor = JSON.parse(lineAfter(result.stdout, "Cursor, .cursor/mcp.json in the project:"));
    expect(cursor).toEqual({
      mcpServers: { awr: { command: program, args: ["--project", root] } },
    });
    const codex = result.stdout.slice(result.stdout.indexOf("[mcp_servers.awr]"));
    expect(codex).toContain(`command = ${JSON.stringify(program)}`);
    expect(codex).toContain(`args = ${JSON.stringify(["--project", root])}`);

    // Started as the host would: the configured command and arguments, nothing else.
    const server = claude.mcpServers.awr as { command: string; args: string[] };
    const client = new Client({ name: "host-config-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({ command: server.command, args: server.args, stderr: "pipe" }),
    );
    try {
      const status = await client.callTool({
        name: "awr_project_status",
        arguments: { view: "full" },
      });
      expect(status.isError ?? false).toBe(false);
      const served = status.structuredContent as { project_id: string };
      const local = await awr(["--json", "--project", root, "status"]);
      expect(served.project_id).toBe(local.json<{ project_id: string }>().project_id);
    } finally {
      await client.close();
    }
  });

  it("says how to get awr-mcp when it is not on PATH, and prints nothing of it for --json", async () => {
    const root = await demoProject({ init: false });
    const human = await awr(["--project", root, "init", "--accept"], {
      env: { PATH: "/nonexistent" },
    });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain("awr-mcp is not on PATH: install @awr/service");
    expect(lineAfter(human.stdout, "Cursor, .cursor/mcp.json in the project:")).toContain(
      '"command": "awr-mcp"',
    );
    const again = await awr(["--json", "--project", root, "init", "--accept"]);
    expect(again.json()).not.toHaveProperty("host_configs");
    expect(again.stdout).not.toContain("mcpServers");
  });
});
