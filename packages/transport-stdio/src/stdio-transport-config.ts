import { basename } from "node:path";
import type { CorrelatedTransportOptions } from "@awr/jsonrpc-core";
import { DEFAULT_INHERITED_ENV_VARS, getDefaultEnvironment } from "./default-environment.js";
import { USE_PROCESS_GROUPS } from "./internal/process-group.js";

export const DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;
export const DEFAULT_STDERR_BUFFER_BYTES = 64 * 1024;
export const DEFAULT_CLOSE_GRACE_MS = 2_000;
export const DEFAULT_KILL_GRACE_MS = 2_000;

export interface StdioTransportConfig extends Omit<CorrelatedTransportOptions, "maxMessageBytes"> {
  /** Executable to run, looked up on the child's PATH. Never run through a shell. */
  command: string;
  args?: readonly string[];
  /** Variables set for the server, on top of the inherited ones (see `inheritEnv`). */
  env?: Readonly<Record<string, string>>;
  /**
   * What the server inherits from this process before `env` is applied: by default
   * {@link DEFAULT_INHERITED_ENV_VARS}; `true` for the whole environment; a list for those names.
   */
  inheritEnv?: boolean | readonly string[];
  cwd?: string;
  /** Largest inbound frame in bytes (default 16 MiB). Bigger frames are discarded and reported. */
  maxFrameBytes?: number;
  /** Receives the server's stderr as it arrives, decoded as UTF-8. */
  onStderr?: (chunk: string) => void;
  /** How much of the server's stderr to keep for error messages (default 64 KiB; 0 keeps none). */
  stderrBufferBytes?: number;
  /** How long `close()` waits for the server to exit after its stdin ends (default 2000 ms). */
  closeGraceMs?: number;
  /** How long to wait after SIGTERM before SIGKILL (default 2000 ms). */
  killGraceMs?: number;
  /** The server's name in error messages (default: the command's base name). */
  name?: string;
  /**
   * POSIX: start the server as the leader of its own process group (default true), so close()
   * reaches everything it started, an `npx` wrapper's real server included. The group comes with
   * a session of its own (setsid), which under Linux's autogroup scheduling puts the server in a
   * scheduling group of its own: on a loaded machine that costs round-trip latency. `false`
   * keeps the server in this process's group and session; close() then signals the server alone.
   * Ignored on Windows, which has no process groups.
   */
  processGroup?: boolean;
}

export interface ResolvedStdioConfig {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string | undefined;
  maxFrameBytes: number;
  onStderr: ((chunk: string) => void) | undefined;
  stderrBufferBytes: number;
  closeGraceMs: number;
  killGraceMs: number;
  name: string;
  processGroup: boolean;
}

/** Checks a config and fills in defaults. Throws TypeError or RangeError naming the bad field. */
export function resolveStdioConfig(config: StdioTransportConfig): ResolvedStdioConfig {
  if (typeof config !== "object" || config === null) {
    throw new TypeError("stdio transport: config must be an object");
  }
  const { command, args = [], env = {}, cwd, name } = config;
  if (typeof command !== "string" || command.trim() === "") {
    throw new TypeError("stdio transport: `command` must be a non-empty string");
  }
  if (!Array.isArray(args) || args.some((arg) => typeof arg !== "string")) {
    throw new TypeError("stdio transport: `args` must be an array of strings");
  }
  if (
    typeof env !== "object" ||
    env === null ||
    Object.values(env).some((value) => typeof value !== "string")
  ) {
    throw new TypeError("stdio transport: `env` must map names to strings");
  }
  if (cwd !== undefined && (typeof cwd !== "string" || cwd === "")) {
    throw new TypeError("stdio transport: `cwd` must be a non-empty string");
  }
  if (name !== undefined && typeof name !== "string") {
    throw new TypeError("stdio transport: `name` must be a string");
  }
  if (config.onStderr !== undefined && typeof config.onStderr !== "function") {
    throw new TypeError("stdio transport: `onStderr` must be a function");
  }
  if (config.timeout !== undefined && !(typeof config.timeout === "number" && config.timeout > 0)) {
    throw new RangeError(
      `stdio transport: \`timeout\` must be a positive number, got ${String(config.timeout)}`,
    );
  }
  if (config.processGroup !== undefined && typeof config.processGroup !== "boolean") {
    throw new TypeError("stdio transport: `processGroup` must be a boolean");
  }
  const inherit = config.inheritEnv;
  if (inherit !== undefined && typeof inherit !== "boolean" && !Array.isArray(inherit)) {
    throw new TypeError("stdio transport: `inheritEnv` must be a boolean or an array of names");
  }
  const inherited =
    inherit === true
      ? getDefaultEnvironment(Object.keys(process.env))
      : inherit === false
        ? {}
        : getDefaultEnvironment(inherit ?? DEFAULT_INHERITED_ENV_VARS);
  return {
    command,
    args: [...args],
    env: { ...inherited, ...env },
    cwd,
    maxFrameBytes: positiveInteger("maxFrameBytes", config.maxFrameBytes, DEFAULT_MAX_FRAME_BYTES),
    onStderr: config.onStderr,
    stderrBufferBytes: nonNegative(
      "stderrBufferBytes",
      config.stderrBufferBytes,
      DEFAULT_STDERR_BUFFER_BYTES,
      true,
    ),
    closeGraceMs: nonNegative("closeGraceMs", config.closeGraceMs, DEFAULT_CLOSE_GRACE_MS),
    killGraceMs: nonNegative("killGraceMs", config.killGraceMs, DEFAULT_KILL_GRACE_MS),
    name: name?.trim() || basename(command),
    processGroup: USE_PROCESS_GROUPS && config.processGroup !== false,
  };
}

function positiveInteger(field: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new RangeError(
      `stdio transport: \`${field}\` must be a positive integer, got ${String(value)}`,
    );
  }
  return value;
}

function nonNegative(
  field: string,
  value: number | undefined,
  fallback: number,
  integer = false,
): number {
  if (value === undefined) return fallback;
  const ok =
    typeof value === "number" &&
    Number.isFinite(value) &&
    value >= 0 &&
    (!integer || Number.isInteger(value));
  if (!ok) {
    throw new RangeError(
      `stdio transport: \`${field}\` must be a non-negative ${integer ? "integer" : "number"}, got ${String(value)}`,
    );
  }
  return value;
}
