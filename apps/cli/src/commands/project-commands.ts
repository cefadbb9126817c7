import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { Option } from "../internal/commander.js";
import { workListLines } from "../render/views.js";
import { group } from "./catalog-commands.js";
import { registerContextBootstrap } from "./context-bootstrap-command.js";
import { runInit } from "./init-command.js";
import { localOnly } from "./local-only.js";
import { defined } from "./option-parsers.js";

/**
 * Commands written by hand: init (no operation), and work list and context bootstrap, whose
 * CLI-only catalog entries (awr_work_list, awr_context_bootstrap) they run with their own help,
 * flags and views.
 */
export function registerProjectCommands(program: Command, context: CommandContext): void {
  program
    .command("init")
    .description(
      "preview the source mapping of a project (nothing is written); with --accept create .awr/ (manifest, ledger, project id)",
    )
    .option(
      "--manifest <file>",
      "use this manifest (project.toml) instead of discovering sources; a relative path is taken from --project",
    )
    .option("--accept", "write .awr/project.toml and .awr/state.db and index the sources")
    .addHelpText(
      "after",
      "\nRe-running init keeps the project id; a manifest that conflicts with the existing one is refused.",
    )
    .action(async (options: { manifest?: string; accept?: boolean }) => {
      await runInit(context, options);
    });

  group(program, "work")
    .command("list")
    .description("every work item as an aligned table, optionally by status, milestone or goal")
    .addOption(new Option("--status <status>", "only work in this status"))
    .option("--milestone <key>", "only work of this milestone")
    .option("--goal <key>", "only work of this goal, e.g. goal#checkout")
    .action(async (options: { status?: string; milestone?: string; goal?: string }) => {
      localOnly(context, "work list");
      const result = await context.read("awr_work_list", defined({ ...options }));
      context.print(result, () => workListLines(result, context.colors));
    });

  registerContextBootstrap(program, context);
}
