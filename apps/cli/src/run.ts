import { type CliError, EXIT_CODES, usageError } from "./cli-error.js";
import { CommandContext, type RunIO } from "./context.js";
import { hoistGlobalOptions } from "./global-options.js";
import { type Command, CommanderError } from "./internal/commander.js";
import { openBackend } from "./open-backend.js";
import { buildProgram } from "./program.js";
import { cancelledError, toCliError, writeError } from "./report-error.js";
import { unknownCommandError } from "./unknown-command.js";
import { withholdCredentials } from "./withhold-credentials.js";
import { withWorkSuggestions } from "./work-suggestions.js";

/** Streams, environment, working directory and an optional abort signal for one run. */
export type RunOptions = RunIO;

/** Commander outcomes that are not failures. */
const SUCCESSFUL_EXITS = new Set(["commander.helpDisplayed", "commander.version"]);

/**
 * Runs `awr` with `argv` (the words after the program name) and resolves to the exit code:
 * 0 success, 1 domain error, 2 usage error, 130 interrupted. Never throws and never exits the
 * process; everything goes to `options.stdout` / `options.stderr`.
 */
export async function run(argv: readonly string[], options: RunOptions): Promise<number> {
  const args = hoistGlobalOptions(argv);
  const end = args.indexOf("--");
  const words = end < 0 ? args : args.slice(0, end);
  const json = words.includes("--json");
  const context = new CommandContext(options, openBackend);
  context.globals = { json, color: !args.includes("--no-color") };
  let commanderMessage: string | undefined;
  const program = buildProgram(
    context,
    {
      writeOut: (text) => void options.stdout.write(text),
      // Under --json the help commander prints for a missing subcommand is replaced by one JSON error.
      writeErr: (text) => void (json ? undefined : options.stderr.write(text)),
      outputError: (text) => {
        commanderMessage = text;
      },
    },
    words,
  );

  try {
    await program.parseAsync(args, { from: "user" });
    return EXIT_CODES.ok;
  } catch (error) {
    const classified = classify(error, commanderMessage, options.signal, program, args);
    if (classified === undefined) return EXIT_CODES.ok;
    const failure = await withholdCredentials(await withWorkSuggestions(classified, context), args);
    writeError(failure, options, json, context.errorColors);
    return failure.exitCode;
  } finally {
    await context.close();
  }
}

function classify(
  error: unknown,
  commanderMessage: string | undefined,
  signal: AbortSignal | undefined,
  program: Command,
  args: readonly string[],
): CliError | undefined {
  if (error instanceof CommanderError) {
    if (SUCCESSFUL_EXITS.has(error.code)) return undefined;
    if (error.code === "commander.unknownCommand") {
      const unknown = unknownCommandError(program, args);
      if (unknown !== undefined) return unknown;
    }
    if (error.code === "commander.help") {
      // A command group without its subcommand; commander printed the group's help on stderr.
      return usageError("This command needs a subcommand; run it with --help to list them.");
    }
    // commander puts its own suggestion (an option's) on a line of its own: one line here.
    const text = (commanderMessage ?? error.message)
      .replace(/^error:\s*/i, "")
      .trim()
      .replace(/\s*\n\s*/g, " ");
    return usageError(
      `${text}${text.endsWith(".") ? "" : "."} Run \`awr help\` or add --help to the command.`,
    );
  }
  if (signal?.aborted) return cancelledError(signal.reason);
  return toCliError(error);
}
