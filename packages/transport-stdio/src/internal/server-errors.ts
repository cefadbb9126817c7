import { existsSync } from "node:fs";
import { LocalErrorCode, TransportError } from "@awr/jsonrpc-core";
import type { ProcessExit } from "../process-exit.js";

/** What every error about a server carries: its name, its stderr tail, its exit if known. */
export interface ServerFacts {
  name: string;
  stderrTail: string;
  exit: ProcessExit | undefined;
  pid: number | undefined;
}

function details(facts: ServerFacts, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const exit = facts.exit ? { exitCode: facts.exit.code, signal: facts.exit.signal } : {};
  return { server: facts.name, ...exit, ...extra };
}

export function transportFailure(
  facts: ServerFacts,
  message: string,
  cause?: unknown,
  code: LocalErrorCode = LocalErrorCode.TransportFailed,
): TransportError {
  return new TransportError(code, message, {
    cause,
    stderrTail: facts.stderrTail,
    details: details(facts),
  });
}

export function processExited(facts: ServerFacts, exit: ProcessExit): TransportError {
  const how = exit.signal
    ? `was killed by ${exit.signal}`
    : `exited with code ${String(exit.code)}`;
  return new TransportError(
    LocalErrorCode.ProcessExited,
    `server "${facts.name}" ${how} unexpectedly`,
    {
      stderrTail: facts.stderrTail,
      details: details({ ...facts, exit }, { pid: facts.pid }),
    },
  );
}

export function spawnFailed(
  facts: ServerFacts,
  launch: { command: string; args: readonly string[]; cwd: string | undefined },
  error: unknown,
): TransportError {
  const { command, args, cwd } = launch;
  const errno = (error as NodeJS.ErrnoException | undefined)?.code;
  let why = error instanceof Error ? error.message : String(error);
  if (errno === "ENOENT") {
    // spawn reports a missing working directory as ENOENT too: say which one it was.
    why =
      cwd !== undefined && !existsSync(cwd)
        ? `working directory "${cwd}" does not exist`
        : `command "${command}" not found`;
  } else if (errno === "EACCES") {
    why = `command "${command}" is not executable`;
  }
  return new TransportError(
    LocalErrorCode.SpawnFailed,
    `cannot start server "${facts.name}": ${why}${errno ? ` (${errno})` : ""}`,
    {
      cause: error,
      stderrTail: facts.stderrTail,
      details: details(facts, { command, args, cwd, errno }),
    },
  );
}

export function frameTooLarge(
  facts: ServerFacts,
  frameBytes: number,
  maxFrameBytes: number,
  requestId: string | number | undefined,
): TransportError {
  return new TransportError(
    LocalErrorCode.FrameTooLarge,
    `server "${facts.name}" sent a ${frameBytes}-byte frame, over the ${maxFrameBytes}-byte limit; it was discarded and the connection kept`,
    {
      stderrTail: facts.stderrTail,
      details: details(facts, {
        frameBytes,
        maxFrameBytes,
        ...(requestId === undefined ? {} : { requestId }),
      }),
    },
  );
}
