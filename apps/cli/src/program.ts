import { registerCatalogCommands } from "./commands/catalog-commands.js";
import { registerChangeCommands } from "./commands/change-commands.js";
import { registerDoctorHooks } from "./commands/doctor-commands.js";
import { registerProjectCommands } from "./commands/project-commands.js";
import { registerRegistryCommands } from "./commands/registry-commands.js";
import { registerSourceCommands } from "./commands/source-commands.js";
import { registerWorkstreamCommands } from "./commands/workstream-commands.js";
import type { CommandContext } from "./context.js";
import { registerInspectorCommand } from "./inspector/inspector-command.js";
import { Command, Option } from "./internal/commander.js";
import { packageVersion } from "./internal/package-version.js";

export interface ProgramOutput {
  writeOut(text: string): void;
  writeErr(text: string): void;
  /** Receives commander's own error message (usage errors) instead of printing it. */
  outputError(text: string): void;
}

const EXIT_CODE_HELP = `
Exit codes: 0 success, 1 domain error (the ledger or service refused; the message names the fix;
also a top-level command near none of awr's, Unsupported), 2 usage error (the command line is
wrong, a mistyped command included: "Did you mean"; InvalidInput under --json), 130 interrupted.
Global options (--json, --project, --url, --token-env, --project-key, --no-color) may appear
before or after the subcommand. Under --json, results are the same JSON as the MCP tools'
structuredContent on stdout, and errors are {code, message, details?} on stderr.`;

/**
 * The `awr` command tree for one run. Commander settings made here before the commands are added
 * (exitOverride, output, help) are inherited by every subcommand. With `words` (the command
 * line), the catalog's commands are added only under the top-level words it names (see
 * registerCatalogCommands); without, the whole tree.
 */
export function buildProgram(
  context: CommandContext,
  output: ProgramOutput,
  words?: readonly string[],
): Command {
  const program = new Command("awr");
  program
    .description(
      "AWR, the work ledger for AI coding agents: the project's goals, plan, rules, decisions and work items, plus sessions, claims, checkpoints, waits, evidence and events.",
    )
    .version(packageVersion(), "-V, --version", "print the version")
    .helpOption("-h, --help", "show help for a command")
    .addHelpCommand("help [command]", "show help for a command")
    .option(
      "--json",
      "print the domain JSON (as the MCP tools return it); errors as JSON on stderr",
    )
    .option(
      "--project <dir>",
      "project directory; the nearest ancestor with .awr/project.toml is used (default: .)",
    )
    .option(
      "--url <url>",
      "remote mode: a shared AWR service's MCP endpoint, e.g. http://127.0.0.1:8787/mcp",
    )
    .option(
      "--token-env <name>",
      "remote mode: environment variable holding the bearer token (default: AWR_TOKEN)",
    )
    .option("--project-key <key>", "remote mode: the project's key in the service registry")
    .addOption(
      new Option("--no-color", "never colour the output (colour is used only on a terminal)"),
    )
    .exitOverride()
    .configureOutput(output)
    .configureHelp({ showGlobalOptions: true })
    .showSuggestionAfterError(true)
    .addHelpText("after", EXIT_CODE_HELP)
    .hook("preAction", () => {
      const opts = program.opts<{
        json?: boolean;
        color?: boolean;
        project?: string;
        url?: string;
        tokenEnv?: string;
        projectKey?: string;
      }>();
      context.globals = {
        json: opts.json === true,
        color: opts.color !== false,
        ...(opts.project !== undefined ? { project: opts.project } : {}),
        ...(opts.url !== undefined ? { url: opts.url } : {}),
        ...(opts.tokenEnv !== undefined ? { tokenEnv: opts.tokenEnv } : {}),
        ...(opts.projectKey !== undefined ? { projectKey: opts.projectKey } : {}),
      };
    });

  registerProjectCommands(program, context);
  registerCatalogCommands(program, context, words);
  registerDoctorHooks(program, context);
  registerChangeCommands(program, context);
  registerSourceCommands(program, context);
  registerWorkstreamCommands(program, context);
  registerRegistryCommands(program, context);
  registerInspectorCommand(program, context);
  return program;
}
