import { DEFAULT_BOOTSTRAP_BUDGET } from "@awr/awr-ledger/catalog";
import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { bootstrapLines } from "../render/views.js";
import { group } from "./catalog-commands.js";
import { localOnly } from "./local-only.js";
import { defined, integer } from "./option-parsers.js";

interface BootstrapFlags {
  work?: string;
  session?: string;
  conversation?: string;
  agent?: string;
  budget: number;
}

/**
 * `awr context bootstrap`: the L0 orientation packet (awr_context_bootstrap, a CLI-only catalog
 * entry, no MCP tool), after a reindex of changed sources like every CLI read. Written by hand:
 * its flags' help and its default budget (shown in the help, always sent) are the CLI's own.
 */
export function registerContextBootstrap(program: Command, context: CommandContext): void {
  group(program, "context")
    .command("bootstrap")
    .description(
      "the small startup packet: the work item, its state and next action, the session's last checkpoint, every hard rule that applies",
    )
    .option("--work <work>", "the work item (default: the session's, else the current one)")
    .option("--session <session>", "the session to restore (not with --conversation)")
    .option("--conversation <conversation>", "the host conversation whose session to restore")
    .option("--agent <agent>", "the agent whose agent-scoped rules apply")
    .option(
      "--budget <n>",
      `token budget of the rendered packet (default ${DEFAULT_BOOTSTRAP_BUDGET})`,
      integer(),
      DEFAULT_BOOTSTRAP_BUDGET,
    )
    .action(async (flags: BootstrapFlags) => {
      localOnly(context, "context bootstrap");
      const result = await context.read("awr_context_bootstrap", defined({ ...flags }));
      context.print(result, () => bootstrapLines(result, context.colors));
    });
}
