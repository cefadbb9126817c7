import { cp } from "node:fs/promises";
import { join } from "node:path";
import {
  CallLimiter,
  createAwrServer,
  defaultBackend,
  type LedgerPort,
  type ToolHost,
} from "@awr/awr-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awr, demoProject, removeTemps, tempDir } from "./support/cli-harness.js";
import { Normaliser } from "./support/normalise.js";
import { STEPS } from "./support/parity-steps.js";

/**
 * Parity: for every operation that is also a tool, `awr --json` prints what the tool returns as
 * structuredContent, through awr-server's tools in the stdio server's mode with the SDK's own
 * Client over an in-memory transport. Reads are compared exactly on the same project (the CLI
 * and a server both on it). Writes run on two identical copies of the demo project, one through
 * the CLI and one through the tools, and must be equal up to the ids and times they mint.
 */

let cliRoot: string;
let toolRoot: string;
/** Tools on the copy that only the tools write to. */
let client: Client;
/** Tools on the CLI's own project, for exact comparison of reads. */
let sameProject: Client;
const opened: { client: Client; ledger: LedgerPort }[] = [];

async function toolsOn(root: string): Promise<Client> {
  const ledger = await defaultBackend().open(root);
  const host: ToolHost = {
    mode: "stdio",
    caller: { client: "stdio" },
    limiter: new CallLimiter(8),
    resolveProject: async () => ({ ledger, root }),
  };
  const server = createAwrServer(host);
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const sdkClient = new Client({ name: "parity-test", version: "1.0.0" });
  await sdkClient.connect(clientSide);
  opened.push({ client: sdkClient, ledger });
  return sdkClient;
}

beforeAll(async () => {
  cliRoot = await demoProject();
  toolRoot = join(await tempDir(), "bookshop");
  await cp(cliRoot, toolRoot, { recursive: true });
  client = await toolsOn(toolRoot);
  sameProject = await toolsOn(cliRoot);
});

afterAll(async () => {
  for (const { client: sdkClient, ledger } of opened.splice(0)) {
    await sdkClient.close();
    await ledger.close();
  }
  await removeTemps();
});

describe("awr --json equals the tools' structuredContent", () => {
  it("walks every shared operation with identical results on two identical projects", async () => {
    const cliSide = new Normaliser(cliRoot);
    const toolSide = new Normaliser(toolRoot);
    let cliRevision = -1;
    const initial = await client.callTool({ name: "awr_project_status", arguments: {} });
    let toolRevision = (initial.structuredContent as { project_revision: number }).project_revision;
    const covered = new Set<string>();
    for (const step of STEPS) {
      const words = ["--project", cliRoot, ...step.cli, "--json"];
      if (step.write && step.explicitRevision)
        words.push("--expected-revision", String(cliRevision));
      const cli = await awr(words);
      expect(cli.stderr, step.cli.join(" ")).toBe("");
      expect(cli.code, step.cli.join(" ")).toBe(0);

      const fromCli = cli.json();
      if (step.write) {
        const args = { ...step.args, expected_revision: toolRevision };
        const result = await client.callTool({ name: step.tool, arguments: args });
        expect(
          result.isError,
          `${step.tool}: ${JSON.stringify(result.structuredContent)}`,
        ).toBeFalsy();
        expect(cliSide.value(fromCli), step.cli.join(" ")).toEqual(
          toolSide.value(result.structuredContent),
        );
        toolRevision = (result.structuredContent as { project_revision: number }).project_revision;
      } else {
        const result = await sameProject.callTool({ name: step.tool, arguments: step.args });
        expect(
          result.isError,
          `${step.tool}: ${JSON.stringify(result.structuredContent)}`,
        ).toBeFalsy();
        expect(fromCli, step.cli.join(" ")).toEqual(result.structuredContent);
        // Keep the two copies' normalisers in step: both sides see the same ids in the same order.
        cliSide.value(fromCli);
        toolSide.value(
          (await client.callTool({ name: step.tool, arguments: step.args })).structuredContent,
        );
      }
      cliRevision = fromCli["project_revision"] as number;
      covered.add(step.tool);
      covered.add(step.cli.slice(0, 2).join(" "));
    }
    expect(cliRevision).toBe(toolRevision);
    for (const command of [
      "session start",
      "session show",
      "session list",
      "session checkpoint",
      "session claim",
      "session release",
      "session end",
      "session resume",
      "session wait",
      "session reply",
      "work progress",
      "work block",
      "work unblock",
      "work cancel",
      "work reopen",
      "work complete",
      "operation get",
      "operation recover",
      "source reindex",
    ]) {
      expect(covered, command).toContain(command);
    }
    expect([...covered].filter((name) => name.startsWith("awr_"))).toHaveLength(20);
  });

  it("prints a tool's error payload as the CLI's error document", async () => {
    const cli = await awr(["--project", cliRoot, "--json", "work", "show", "W-404"]);
    const result = await sameProject.callTool({
      name: "awr_work_get",
      arguments: { work: "W-404" },
    });
    expect(result.isError).toBe(true);
    expect(cli.code).toBe(1);
    expect(cli.error()).toEqual(result.structuredContent);
  });
});
