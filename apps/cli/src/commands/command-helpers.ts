import type { Command } from "commander";
import type { OperationInput, OperationName, OperationResult } from "../backend/operations.js";
import type { CommandContext, WriteFlags } from "../context.js";
import { Option } from "../internal/commander.js";
import { transitionLines } from "../render/views.js";
import { integer } from "./option-parsers.js";

export const WRITE_HELP = `
Writes check --expected-revision against the project's revision and change nothing on a
mismatch (RevisionConflict). Without the flag, awr reads the current revision just before the
write. --request-id makes a retry safe: the same id and arguments replay the recorded result.
In remote mode awr generates a request id when none is given.`;

/** `--expected-revision N` and `--request-id ID`, on every write command. */
export function withWriteOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        "--expected-revision <n>",
        "the project revision you last saw (default: the current one)",
      ).argParser(integer(0)),
    )
    .option(
      "--request-id <id>",
      "a stable id for this write (1..256 bytes); retrying with it is safe",
    )
    .addHelpText("after", WRITE_HELP);
}

export function writeFlags(options: { expectedRevision?: number; requestId?: string }): WriteFlags {
  return {
    ...(options.expectedRevision !== undefined
      ? { expectedRevision: options.expectedRevision }
      : {}),
    ...(options.requestId !== undefined ? { requestId: options.requestId } : {}),
  };
}

/**
 * Runs a write command's operation with its `--expected-revision` / `--request-id` flags and
 * prints the transition under `headline` (JSON output prints the result as it is).
 */
export async function writeAndPrint(
  context: CommandContext,
  operation: OperationName,
  input: OperationInput,
  flags: WriteFlags,
  headline: string | ((result: OperationResult) => string),
): Promise<void> {
  const result = await context.write(operation, input, writeFlags(flags));
  context.print(result, () =>
    transitionLines(
      result,
      context.colors,
      typeof headline === "string" ? headline : headline(result),
    ),
  );
}

/** The options of a write command that may name the session it belongs to. */
export interface SessionWriteOptions extends WriteFlags {
  session?: string;
  conversation?: string;
}

/** `--session ID` / `--conversation TEXT`: the two ways to name a session (give at most one). */
export function withSessionOptions(command: Command, what = "the session"): Command {
  return command
    .option("--session <id>", `${what}, by session id`)
    .option("--conversation <text>", `${what}, by the host's conversation string`);
}

export function sessionAddress(
  options: { session?: string; conversation?: string },
  positional?: string,
): { session?: string; conversation?: string } {
  const session = positional ?? options.session;
  return {
    ...(session !== undefined ? { session } : {}),
    ...(options.conversation !== undefined ? { conversation: options.conversation } : {}),
  };
}

/** `--limit N` (1..100) for list-shaped reads. */
export function limitOption(): Option {
  return new Option("--limit <n>", "at most this many results, 1..100 (default 20)").argParser(
    integer(1, 100),
  );
}
