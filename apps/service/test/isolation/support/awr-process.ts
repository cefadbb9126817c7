import { spawn } from "node:child_process";
import { awrCommand, SERVICE_DIR } from "../../support/service-process.js";

/** One finished `awr` process: its exit code and its two streams, read separately. */
export interface AwrRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout as the one JSON document `--json` prints. */
  json<T = Record<string, unknown>>(): T;
  /** stderr's last line as the `{code, message, details?}` error document. */
  error(): { code: string; message: string; details?: Record<string, unknown> };
}

/**
 * Runs `awr --project ROOT --json ARGS` as its own OS process (built from sources, as awr-mcp
 * is), and waits for it to exit.
 */
export function runAwr(root: string, args: readonly string[]): Promise<AwrRun> {
  const awr = awrCommand(["--project", root, "--json", ...args]);
  const child = spawn(awr.command, awr.args, {
    cwd: SERVICE_DIR,
    env: process.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => {
      resolve({
        code: code ?? (signal ? 128 : -1),
        stdout,
        stderr,
        json<T>() {
          try {
            return JSON.parse(stdout) as T;
          } catch {
            throw new Error(
              `awr ${args.join(" ")}: stdout is not JSON (exit ${code}):\n${stdout}\n${stderr}`,
            );
          }
        },
        error() {
          const line = stderr.trim().split("\n").at(-1) ?? "";
          try {
            return JSON.parse(line);
          } catch {
            throw new Error(
              `awr ${args.join(" ")}: stderr is not an error document (exit ${code}):\n${stderr}`,
            );
          }
        },
      });
    });
  });
}
