import { cp, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { OPERATION_LIST } from "@awr/awr-ledger";
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
import { BRANCH_STEPS } from "./support/branch-parity-steps.js";
import { awr, demoProject, removeTemps, tempDir } from "./support/cli-harness.js";
import { Normaliser } from "./support/normalise.js";
import { type EarlierResults, STEPS } from "./support/parity-steps.js";

/**
 * Parity, as the original's cli_parity checks it: every catalog tool, run from the CLI with
 * `--json` and as a tool call (awr-server in the stdio server's mode, the SDK's own Client over
 * an in-memory transport). Reads are compared on the same project at the same revision and must
 * be equal but for the read-policy fields (the CLI refreshes sources, a tool read does not).
 * Writes run on two identical copies, one through the CLI and one through the tools, and must be
 * equal up to the ids and times they mint.
 */

/** The only fields where a CLI read and a tool read may differ (the contract's table). */
const POLICY = ["freshness_basis", "source_refresh_performed", "read_only"];

let cliRoot: string;
let toolRoot: string;
let files: string;
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

function withoutPolicy(value: unknown): Record<string, unknown> {
  const copy = { ...(value as Record<string, unknown>) };
  for (const key of POLICY) delete copy[key];
  return copy;
}

function remember(earlier: Map<string, Record<string, unknown>[]>, tool: string, value: unknown) {
  earlier.set(tool, [...(earlier.get(tool) ?? []), value as Record<string, unknown>]);
}

beforeAll(async () => {
  cliRoot = await demoProject();
  toolRoot = join(await tempDir(), "bookshop");
  files = join(await tempDir(), "inputs");
  await mkdir(files, { recursive: true });
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
  it("walks every catalog tool and CLI command with identical results on two identical projects", async () => {
    const cliSide = new Normaliser(cliRoot);
    const toolSide = new Normaliser(toolRoot);
    const cliEarlier = new Map<string, Record<string, unknown>[]>();
    const toolEarlier = new Map<string, Record<string, unknown>[]>();
    let cliRevision = -1;
    const initial = await client.callTool({
      name: "awr_project_status",
      arguments: { view: "full" },
    });
    let toolRevision = (initial.structuredContent as { project_revision: number }).project_revision;
    const coveredTools = new Set<string>();
    const coveredCommands = new Set<string>();
    for (const step of [...STEPS, ...BRANCH_STEPS]) {
      const stepFiles = { ...step.files, ...step.lateFiles?.(cliEarlier as EarlierResults) };
      for (const [name, content] of Object.entries(stepFiles)) {
        await writeFile(join(files, name), JSON.stringify(content));
      }
      const cliWords = [
        ...step.cli.map((word) => word.replace("<dir>", files)),
        ...(step.lateCli?.(cliEarlier as EarlierResults) ?? []),
      ];
      const words = ["--project", cliRoot, ...cliWords, "--json"];
      if (step.write && step.explicitRevision)
        words.push("--expected-revision", String(cliRevision));
      const cli = await awr(words);
      const label = cliWords.join(" ");
      if (step.error === undefined) {
        expect(cli.stderr, label).toBe("");
        expect(cli.code, label).toBe(0);
      } else {
        expect(cli.error().code, label).toBe(step.error);
        expect(cli.code, label).toBe(1);
      }
      const fromCli = cli.json();
      const args = { ...step.args, ...(step.late?.(toolEarlier as EarlierResults) ?? {}) };
      if (step.cliOnly) {
        // No tool: the same command on the tools' copy keeps the two copies identical.
        const otherWords = [
          ...step.cli.map((word) => word.replace("<dir>", files)),
          ...(step.lateCli?.(toolEarlier as EarlierResults) ?? []),
        ];
        const other = await awr(["--project", toolRoot, ...otherWords, "--json"]);
        expect(other.stderr, label).toBe("");
        expect(cliSide.value(fromCli), label).toEqual(toolSide.value(other.json()));
        toolRevision = other.json<{ project_revision: number }>().project_revision;
        remember(toolEarlier, step.tool, other.json());
      } else if (step.write) {
        const result = await client.callTool({
          name: step.tool,
          arguments: { ...args, expected_revision: toolRevision },
        });
        expect(
          result.isError,
          `${step.tool}: ${JSON.stringify(result.structuredContent)}`,
        ).toBeFalsy();
        const drop = (value: unknown) => {
          const copy = { ...(value as Record<string, unknown>) };
          for (const key of step.ignore ?? []) delete copy[key];
          return copy;
        };
        expect(cliSide.value(drop(fromCli)), label).toEqual(
          toolSide.value(drop(result.structuredContent)),
        );
        toolRevision = (result.structuredContent as { project_revision: number }).project_revision;
        remember(toolEarlier, step.tool, result.structuredContent);
      } else {
        const result = await sameProject.callTool({ name: step.tool, arguments: args });
        expect(
          result.isError === true,
          `${step.tool}: ${JSON.stringify(result.structuredContent)}`,
        ).toBe(step.error !== undefined);
        const drop = (value: unknown) => {
          const copy = withoutPolicy(value);
          for (const key of step.ignore ?? []) delete copy[key];
          return copy;
        };
        expect(drop(fromCli), label).toEqual(drop(result.structuredContent));
        expect(fromCli).toMatchObject({
          freshness_basis: step.tool.startsWith("awr_compaction")
            ? "runtime_records_only"
            : step.tool.startsWith("awr_session") || step.tool === "awr_operation_get"
              ? "runtime_database"
              : "source_refresh",
        });
        // Keep the two copies' normalisers in step: both sides see the same ids in the same order.
        const other = await client.callTool({ name: step.tool, arguments: args });
        cliSide.value(fromCli);
        toolSide.value(other.structuredContent);
        remember(toolEarlier, step.tool, other.structuredContent);
      }
      remember(cliEarlier, step.tool, fromCli);
      cliRevision = fromCli["project_revision"] as number;
      if (!step.cliOnly) coveredTools.add(step.tool);
      for (const operation of OPERATION_LIST) {
        for (const command of operation.cli) {
          if (command.path.every((word, i) => cliWords[i] === word)) {
            coveredCommands.add(command.path.join(" "));
          }
        }
      }
    }
    expect(cliRevision).toBe(toolRevision);
    // Every tool stdio serves (awr_workstream is the shared service's, with no command). The
    // CLI-only operations have no tool to compare with: the flags snapshot and their own
    // result-shape tests check them.
    const stdioTools = OPERATION_LIST.filter(
      (o) => o.availability === undefined && o.surface !== "cli",
    );
    // Left out: the tools with no catalog command (the change tools, whose commands are the
    // CLI's own, run by apps/cli/test/change-commands.test.ts), and awr_completion_prepare, whose
    // report must be a file in each copy's project (apps/cli/test/management-commands.test.ts
    // runs its command).
    const walked = stdioTools.filter(
      (o) => o.cli.length > 0 && o.tool !== "awr_completion_prepare",
    );
    expect([...coveredTools].sort()).toEqual(walked.map((o) => o.tool).sort());
    for (const operation of walked) {
      for (const command of operation.cli) {
        expect(coveredCommands, command.path.join(" ")).toContain(command.path.join(" "));
      }
    }
  }, 120_000);

  it("prints a tool's error payload as the CLI's error document", async () => {
    const cli = await awr(["--project", cliRoot, "--json", "work", "show", "W-404"]);
    const result = await sameProject.callTool({
      name: "awr_work_get",
      arguments: { work: "W-404" },
    });
    expect(result.isError).toBe(true);
    expect(cli.code).toBe(1);
    // The CLI's one addition to a tool's error: the nearest work keys of an unknown one.
    const { suggestions, ...details } = cli.error().details ?? {};
    expect(suggestions).toEqual(["W-4"]);
    expect({ ...cli.error(), details }).toEqual(result.structuredContent);
    const far = await awr(["--project", cliRoot, "--json", "work", "show", "ABSENT"]);
    const farTool = await sameProject.callTool({
      name: "awr_work_get",
      arguments: { work: "ABSENT" },
    });
    expect(far.error()).toEqual(farTool.structuredContent);
  });

  it("prints an error's partial result on stdout and the error on stderr, as the tool's body", async () => {
    const cli = await awr([
      "--project",
      cliRoot,
      "--json",
      "context",
      "compile",
      "--work",
      "W-404",
      "--detached",
    ]);
    const result = await sameProject.callTool({
      name: "awr_context_compile",
      arguments: { work: "W-404", detached: true },
    });
    expect(result.isError).toBe(true);
    expect(cli.code).toBe(1);
    const body = cli.json();
    expect(body["error"]).toEqual(cli.error());
    expect(cli.error().code).toBe("ContextIncomplete");
    expect(withoutPolicy(body)).toEqual(withoutPolicy(result.structuredContent));
  });

  it("answers an out-of-range value with the same domain error as the tool (exit 1)", async () => {
    for (const [words, tool, args] of [
      [["ready", "--limit", "0"], "awr_work_ready", { limit: 0 }],
      [["search", "cart", "--limit", "0"], "awr_search", { text: "cart", limit: 0 }],
      [["status", "--branch", "review"], "awr_project_status", { branch: "review" }],
    ] as const) {
      const cli = await awr(["--project", cliRoot, "--json", ...words]);
      const result = await sameProject.callTool({ name: tool, arguments: { ...args } });
      expect(cli.code, words.join(" ")).toBe(1);
      expect(cli.error(), words.join(" ")).toEqual(result.structuredContent);
    }
  });
});
