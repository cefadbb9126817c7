import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { workLines } from "../render/views.js";
import {
  type SessionWriteOptions,
  sessionAddress,
  withSessionOptions,
  withWriteOptions,
  writeAndPrint,
} from "./command-helpers.js";
import { completionEntry, defined } from "./option-parsers.js";

interface TransitionOptions extends SessionWriteOptions {
  nextAction?: string;
  blocker?: string;
  reason?: string;
  criterion?: { criterion: string; evidence: string[] }[];
}

type Action = "progress" | "block" | "unblock" | "cancel" | "reopen" | "complete";

const ACTIONS: readonly { action: Action; summary: string; rule: string }[] = [
  {
    action: "progress",
    summary: "start or continue a work item (planned|ready|claimed|in_progress -> in_progress)",
    rule: "Needs the session's active claim and every required dependency completed.",
  },
  {
    action: "block",
    summary: "mark a work item blocked (in_progress -> blocked); needs --blocker",
    rule: "Needs the session's active claim.",
  },
  {
    action: "unblock",
    summary: "lift a block (blocked -> in_progress)",
    rule: "Needs every required dependency completed.",
  },
  {
    action: "cancel",
    summary: "cancel a work item (any open state -> cancelled)",
    rule: "Cancelling discards the work.",
  },
  {
    action: "reopen",
    summary: "reopen a finished item (completed|cancelled -> planned)",
    rule: "",
  },
  {
    action: "complete",
    summary:
      "complete a work item (in_progress -> completed), mapping every acceptance criterion to evidence",
    rule: 'Needs the session\'s claim, completed dependencies and one --criterion "CRITERION=EVIDENCE[,EVIDENCE…]" per acceptance criterion; releases the claim.',
  },
];

/** `awr work show|progress|block|unblock|cancel|reopen|complete`. */
export function registerWorkCommands(program: Command, context: CommandContext): void {
  const work = program
    .command("work")
    .description("show work items and move them through their states");

  work
    .command("show")
    .description(
      "one work item: status, acceptance criteria, dependencies with their states, decisions, evidence",
    )
    .argument("<work>", "work item id, e.g. W-1")
    .action(async (id: string) => {
      const result = await context.read("workGet", { work: id });
      context.print(result, () => workLines(result, context.colors));
    });

  for (const { action, summary, rule } of ACTIONS) {
    const command = work
      .command(action)
      .description(summary)
      .argument("<work>", "work item id")
      .addHelpText("after", rule ? `\n${rule}` : "");
    withSessionOptions(command, "the acting session");
    command.option("--next-action <text>", "the next action to record on the item");
    if (action === "block") command.requiredOption("--blocker <text>", "what blocks the work");
    if (action === "cancel" || action === "reopen" || action === "unblock") {
      command.option("--reason <text>", "why");
    }
    if (action === "complete") {
      command.option(
        "--criterion <criterion=evidence>",
        "an acceptance criterion (id or exact text) and the evidence keys that prove it (repeatable)",
        completionEntry,
      );
    }
    withWriteOptions(command);
    command.action(async (id: string, options: TransitionOptions) => {
      const input = defined({
        work: id,
        action,
        ...sessionAddress(options),
        next_action: options.nextAction,
        blocker: options.blocker,
        reason: options.reason,
        completion: options.criterion,
      });
      await writeAndPrint(context, "workTransition", input, options, `work ${id}: ${action}`);
    });
  }
}
