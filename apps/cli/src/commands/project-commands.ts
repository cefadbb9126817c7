import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { contextLines, readyLines, searchLines, statusLines } from "../render/views.js";
import { limitOption } from "./command-helpers.js";
import { runInit } from "./init-command.js";
import { collect, defined, integer } from "./option-parsers.js";

/** init, status, ready, search and context compile: the everyday reads. */
export function registerProjectCommands(program: Command, context: CommandContext): void {
  program
    .command("init")
    .description(
      "preview the source mapping of a project (nothing is written); with --accept create .awr/ (manifest, ledger, project id)",
    )
    .option("--manifest <file>", "use this manifest (project.toml) instead of discovering sources")
    .option("--accept", "write .awr/project.toml and .awr/state.db and index the sources")
    .addHelpText(
      "after",
      "\nRe-running init keeps the project id; a manifest that conflicts with the existing one is refused.",
    )
    .action(async (options: { manifest?: string; accept?: boolean }) => {
      await runInit(context, options);
    });

  program
    .command("status")
    .description(
      "project summary: revision, counts by status, current and ready work, next action, gaps",
    )
    .action(async () => {
      const result = await context.read("projectStatus", {});
      context.print(result, () => statusLines(result, context.colors));
    });

  program
    .command("ready")
    .description("work that can start now: ready, unclaimed, every required dependency completed")
    .addOption(limitOption())
    .action(async (options: { limit?: number }) => {
      const result = await context.read("workReady", defined({ limit: options.limit }));
      context.print(result, () => readyLines(result, context.colors));
    });

  program
    .command("search")
    .description("full-text search over work, goals, plans, rules, decisions, evidence and events")
    .argument("<query>", "words to look for")
    .addOption(limitOption())
    .action(async (query: string, options: { limit?: number }) => {
      const result = await context.read("search", defined({ query, limit: options.limit }));
      context.print(result, () => searchLines(result, context.colors));
    });

  const contextGroup = program.command("context").description("compile context packets for agents");
  contextGroup
    .command("compile")
    .description(
      "compile the bounded context packet for a work item, a session or the whole project",
    )
    .argument(
      "[work]",
      "work item id (default: the session's work, or the project when --detached)",
    )
    .option("--session <id>", "compile for this session (its work and last checkpoint)")
    .option("--conversation <text>", "compile for the session bound to this conversation")
    .option("--detached", "compile without a session")
    .option("--budget <tokens>", "token budget, 1..100000 (default 5000)", integer(1, 100_000))
    .option("--intent <text>", "what the agent is about to do")
    .option("--path <path>", "a file path of interest (repeatable)", collect)
    .option("--tag <tag>", "a tag of interest (repeatable)", collect)
    .option("--goal <key>", "a goal of interest, e.g. goal#checkout (repeatable)", collect)
    .option("--checkpoint <id>", "start from this checkpoint")
    .option("--after-revision <n>", "only what changed after this revision", integer(0))
    .action(
      async (
        work: string | undefined,
        options: {
          session?: string;
          conversation?: string;
          detached?: boolean;
          budget?: number;
          intent?: string;
          path?: string[];
          tag?: string[];
          goal?: string[];
          checkpoint?: string;
          afterRevision?: number;
        },
      ) => {
        const input = defined({
          work,
          session: options.session,
          conversation: options.conversation,
          detached: options.detached,
          budget: options.budget,
          intent: options.intent,
          paths: options.path,
          tags: options.tag,
          goals: options.goal,
          checkpoint: options.checkpoint,
          after_revision: options.afterRevision,
        });
        const result = await context.read("contextCompile", input);
        context.print(result, () => contextLines(result, context.colors));
      },
    );
}
