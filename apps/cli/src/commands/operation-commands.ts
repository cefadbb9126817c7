import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { operationLines } from "../render/views.js";
import { writeFlags } from "./command-helpers.js";
import { integer } from "./option-parsers.js";

/** `awr operation get|recover`: what became of a write, by its request id. */
export function registerOperationCommands(program: Command, context: CommandContext): void {
  const operation = program
    .command("operation")
    .description(
      "find out whether a write happened (after a timeout, a crash or a lost connection)",
    );

  operation
    .command("get")
    .description(
      "the recorded operation for a request id: outcome recorded|unknown, receipts, next action",
    )
    .argument("<request-id>", "the request_id the write was sent with")
    .action(async (requestId: string) => {
      const result = await context.read("operationGet", { request_id: requestId });
      context.print(result, () => operationLines(result, context.colors));
    });

  const recover = operation
    .command("recover")
    .description(
      "settle an unfinished write: replay it if finished, else record committed or not_committed",
    )
    .argument("<request-id>", "the request_id of the unfinished write")
    .addHelpText(
      "after",
      "\nrecover never runs the original operation again: it only records what the ledger proves happened.",
    );
  // The request id here is the argument; --request-id would name the recovery itself, which the
  // contract does not take, so only --expected-revision is offered.
  recover
    .option(
      "--expected-revision <n>",
      "the project revision you last saw (default: the current one)",
      integer(0),
    )
    .action(async (requestId: string, options: { expectedRevision?: number }) => {
      const result = await context.write(
        "operationRecover",
        { request_id: requestId },
        writeFlags(options),
      );
      context.print(result, () => operationLines(result, context.colors));
    });
}
