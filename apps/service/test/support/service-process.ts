import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect } from "vitest";
import { testProgram } from "../../../../scripts/test/test-programs.mjs";

/** The service package, the working directory of the processes these tests start. */
export const SERVICE_DIR = fileURLToPath(new URL("../..", import.meta.url));

/** awr-mcp, as the test setup bundled it from its sources for this run, started with `args`. */
export function serviceCommand(args: readonly string[]): { command: string; args: string[] } {
  return { command: process.execPath, args: [testProgram("awr-mcp"), ...args] };
}

/** awr, as the test setup bundled it from its sources for this run, started with `args`. */
export function awrCommand(args: readonly string[]): { command: string; args: string[] } {
  return { command: process.execPath, args: [testProgram("awr"), ...args] };
}

export interface RunningService {
  readonly url: string;
  readonly proc: ChildProcess;
  stderr(): string;
  /** Resolves with the exit code (or the signal name) once the process is gone. */
  readonly exited: Promise<number | string>;
  /** Sends a signal and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

const running = new Set<ChildProcess>();

/** Kills whatever a test left running; call from afterEach/afterAll. */
export function killAll(): void {
  for (const proc of running) proc.kill("SIGKILL");
  running.clear();
}

function track(proc: ChildProcess): Promise<number | string> {
  running.add(proc);
  return new Promise((resolve) => {
    proc.once("exit", (code, signal) => {
      running.delete(proc);
      resolve(code ?? signal ?? -1);
    });
  });
}

/** Spawns awr-mcp with the given arguments; collects stderr; stdout must stay silent. */
export function spawnService(args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  const { command, args: argv } = serviceCommand(args);
  const proc = spawn(command, argv, {
    env: { ...process.env, ...env },
    cwd: SERVICE_DIR,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  let stdout = "";
  proc.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  proc.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  const exited = track(proc);
  return { proc, exited, stderr: () => stderr, stdout: () => stdout };
}

/** Starts the HTTP service on an ephemeral loopback port and waits for its listening line. */
export async function startHttpService(
  registry: string,
  env: NodeJS.ProcessEnv = {},
): Promise<RunningService> {
  const child = spawnService(["--registry", registry, "--listen", "127.0.0.1:0"], env);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`service did not start:\n${child.stderr()}`)),
      20_000,
    );
    const check = () => {
      const match = /listening on (http:\/\/\S+)/.exec(child.stderr());
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.proc.stderr?.on("data", check);
    void child.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`service exited (${code}) before listening:\n${child.stderr()}`));
    });
  });
  return {
    url,
    proc: child.proc,
    stderr: child.stderr,
    exited: child.exited,
    async stop(signal: NodeJS.Signals = "SIGTERM") {
      child.proc.kill(signal);
      return child.exited;
    },
  };
}

export async function httpClient(url: string, token: string): Promise<Client> {
  const client = new Client({ name: "e2e", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

export async function stdioClient(
  root: string,
  env: Record<string, string> = {},
): Promise<{ client: Client; stderr: () => string }> {
  const { command, args } = serviceCommand(["--project", root]);
  const transport = new StdioClientTransport({
    command,
    args,
    env: { ...(process.env as Record<string, string>), ...env },
    cwd: SERVICE_DIR,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: "e2e", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** The structuredContent of a successful call; throws with the error payload otherwise. */
export async function ok(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) {
    throw new Error(`${name} failed: ${JSON.stringify(result.structuredContent)}`);
  }
  return result.structuredContent as Record<string, unknown>;
}

/** The error payload of a call that must fail. */
export async function fails(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ code: string; message: string; details?: Record<string, unknown> }> {
  const result = await client.callTool({ name, arguments: args });
  if (!result.isError)
    throw new Error(`${name} unexpectedly succeeded: ${JSON.stringify(result.structuredContent)}`);
  return result.structuredContent as { code: string; message: string };
}

/**
 * The error of a call that must be refused: the result's `error` member when it has one, else
 * its structuredContent; fails the test (showing the answer) when the call succeeded.
 */
export async function refused(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, JSON.stringify(result.structuredContent)).toBe(true);
  const body = result.structuredContent as Record<string, unknown>;
  return ((body["error"] as Record<string, unknown> | undefined) ?? body) as {
    code: string;
    message: string;
  };
}
