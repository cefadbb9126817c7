import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type CallPath, callingBy, toolCall } from "../../support/call-path.js";
import { SERVICE_DIR, serviceCommand } from "../../support/service-process.js";

/** A tool answer as a user sees it: isError and the structured body. */
export interface ToolAnswer {
  isError: boolean;
  body: Record<string, unknown> & {
    code?: string;
    message?: string;
    details?: Record<string, unknown>;
  };
}

/**
 * One agent: a live `awr-mcp --project ROOT` OS process on stdio, driven by the official SDK
 * client. It is ready once `initialize` and `tools/list` have answered, and stays alive for the
 * whole case, answering whatever it is sent, so a loser retries as the same live process.
 */
export interface Contender {
  readonly pid: number;
  call(name: string, args: Record<string, unknown>): Promise<ToolAnswer>;
  /** The body of a call that must succeed; throws with the error body otherwise. */
  ok(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  stderr(): string;
  close(): Promise<void>;
}

/**
 * `path`: whether this agent calls tools by their flat names or through their grouped domains
 * (a case's contenders alternate, so every race has a flat host against a grouped one).
 */
export async function startContender(
  root: string,
  label: string,
  path: CallPath = "flat",
): Promise<Contender> {
  const { command, args } = serviceCommand(["--project", root]);
  const transport = new StdioClientTransport({
    command,
    args,
    env: process.env as Record<string, string>,
    cwd: SERVICE_DIR,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: `isolation-${label}`, version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();
  callingBy(client, path);
  const pid = transport.pid;
  if (pid === null) throw new Error(`contender ${label} has no process:\n${stderr}`);
  const call = async (name: string, args: Record<string, unknown>): Promise<ToolAnswer> => {
    const result = await toolCall(client, name, args);
    return {
      isError: result.isError === true,
      body: result.structuredContent as ToolAnswer["body"],
    };
  };
  return {
    pid,
    call,
    async ok(name, args) {
      const answer = await call(name, args);
      if (answer.isError) {
        throw new Error(`${label}: ${name} failed: ${JSON.stringify(answer.body)}`);
      }
      return answer.body;
    },
    stderr: () => stderr,
    close: () => client.close(),
  };
}
