import type { WorkstreamSummary } from "@awr/awr-server";
import type { Command } from "commander";
import { CliError } from "../cli-error.js";
import type { CommandContext } from "../context.js";
import { formatTable } from "../output/table.js";
import { localOnly } from "./local-only.js";

function workstreamTable(
  context: CommandContext,
  workstreams: readonly WorkstreamSummary[],
): string[] {
  if (workstreams.length === 0)
    return ["no workstreams (add YAML files under workstreams/ in the project)"];
  return formatTable(
    workstreams,
    [
      { header: "workstream_id", value: (w) => w.workstream_id },
      { header: "version", value: (w) => String(w.authority_version) },
      { header: "title", value: (w) => w.title, max: 40 },
      { header: "file", value: (w) => w.file },
      { header: "items", value: (w) => String(w.work_items) },
      { header: "objects", value: (w) => String(w.objects) },
      { header: "events", value: (w) => String(w.events) },
    ],
    context.colors.dim,
  );
}

/** Workstream errors list every problem with file and line; nothing is half-indexed. */
function asCliError(error: unknown): unknown {
  if (error instanceof Error && error.name === "WorkstreamError") {
    const problems = (error as Error & { problems?: unknown }).problems;
    return new CliError("InvalidInput", error.message, {
      cause: error,
      ...(Array.isArray(problems) && problems.length > 0 ? { details: { problems } } : {}),
    });
  }
  return error;
}

/** `awr workstream enable|reindex|list`: local operator actions (registry version 2). */
export function registerWorkstreamCommands(program: Command, context: CommandContext): void {
  const group = program
    .command("workstream")
    .description(
      "YAML workstream ledgers served read-only to granted clients (registry version 2)",
    );

  const act = (name: "enable" | "reindex", description: string, help: string) =>
    group
      .command(name)
      .description(description)
      .addHelpText("after", help)
      .action(async () => {
        localOnly(context, `workstream ${name}`);
        const root = await context.projectRoot();
        const signal = context.signal ? { signal: context.signal } : {};
        // Loaded on use: the server package is large and most commands never need it.
        const { enableWorkstreams, listWorkstreams, reindexWorkstreams } = await import(
          "@awr/awr-server"
        );
        let workstreams: WorkstreamSummary[];
        try {
          workstreams = await (name === "enable" ? enableWorkstreams : reindexWorkstreams)(
            root,
            signal,
          );
        } catch (error) {
          throw asCliError(error);
        }
        const result = {
          enabled: name === "enable" ? true : (await listWorkstreams(root, signal)).enabled,
          workstreams,
        };
        context.print(result, () => [
          `${name === "enable" ? "enabled" : "reindexed"} ${workstreams.length} workstream(s) in ${root}`,
          ...workstreamTable(context, workstreams),
        ]);
      });

  act(
    "enable",
    "index workstreams/*.yaml and serve them; the project's legacy tools then answer Unsupported",
    "\nEnabling is refused, with file and line for every problem, unless every workstream file is valid.",
  );
  act(
    "reindex",
    "re-read workstreams/*.yaml into the index (all files valid, or nothing changes)",
    "\nA workstream_id is immutable: a file that changes its id is refused.",
  );

  group
    .command("list")
    .description("the indexed workstreams and whether the project serves them")
    .action(async () => {
      localOnly(context, "workstream list");
      const root = await context.projectRoot();
      const { listWorkstreams } = await import("@awr/awr-server");
      const result = await listWorkstreams(root, context.signal ? { signal: context.signal } : {});
      context.print(result, () => [
        `workstreams ${result.enabled ? context.colors.green("enabled") : "not enabled"} in ${root}`,
        ...workstreamTable(context, result.workstreams),
      ]);
    });
}
