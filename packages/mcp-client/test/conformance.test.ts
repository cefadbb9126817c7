import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
const HARNESS = fileURLToPath(
  new URL("../node_modules/@modelcontextprotocol/conformance/dist/index.js", import.meta.url),
);
const CLIENT = fileURLToPath(new URL("./fixtures/conformance-client.ts", import.meta.url));
const TSX = pathToFileURL(require.resolve("tsx")).href;

/**
 * The client scenarios of @modelcontextprotocol/conformance 0.1.13 that apply to a tools
 * client without OAuth (the auth/* scenarios need an OAuth authorization flow; see README).
 */
const SCENARIOS = ["initialize", "tools_call", "sse-retry", "elicitation-sep1034-client-defaults"];

function runScenario(scenario: string): Promise<{ code: number | null; output: string }> {
  const command = `"${process.execPath}" --conditions=@awr/source --import ${TSX} "${CLIENT}"`;
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [HARNESS, "client", "--command", command, "--scenario", scenario, "--timeout", "20000"],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 40_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe("MCP conformance suite (client scenarios)", () => {
  it.each(SCENARIOS)("passes %s", { timeout: 45_000 }, async (scenario) => {
    const { code, output } = await runScenario(scenario);
    expect(output, output).toMatch(/Passed: (\d+)\/\1, 0 failed/);
    expect(output).toContain("OVERALL: PASSED");
    expect(code).toBe(0);
  });
});
