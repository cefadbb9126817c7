import { CLI_ERROR_CODES, CliError, EXIT_CODES, usageError } from "./cli-error.js";
import { commandWords } from "./global-options.js";
import type { Command } from "./internal/commander.js";
import { didYouMean, nearest } from "./suggest.js";

/** Where a command line leaves the command tree: the known words before it and the word. */
interface UnknownWord {
  readonly path: readonly string[];
  readonly word: string;
  /** The commands that could stand where the word does. */
  readonly candidates: readonly string[];
}

function findUnknown(program: Command, args: readonly string[]): UnknownWord | undefined {
  let at = program;
  const path: string[] = [];
  for (const word of commandWords(args)) {
    if (at.commands.length === 0) return undefined;
    const next = at.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (next === undefined) {
      const names = at.commands.map((c) => c.name());
      // `help` is commander's own command, not one of program.commands.
      return { path, word, candidates: path.length === 0 ? [...names, "help"] : names };
    }
    path.push(word);
    at = next;
  }
  return undefined;
}

/**
 * The answer to a command word `awr` does not have. A near miss of a command (`awr stauts`,
 * `awr work shwo`) is a usage error (InvalidInput, exit 2) that names the command meant, also as
 * `details.suggestions` (whole command lines, e.g. `awr status`). Any other top-level word is
 * Unsupported (exit 1), listing the commands (docs/compatibility/commands.md); any other word
 * under a command group is a usage error listing the group's. Undefined when the command line
 * holds no unknown command word.
 */
export function unknownCommandError(
  program: Command,
  args: readonly string[],
): CliError | undefined {
  const unknown = findUnknown(program, args);
  if (unknown === undefined) return undefined;
  const { path, word, candidates } = unknown;
  const typed = ["awr", ...path, word].join(" ");
  const command = [...path, word].join(" ");
  const suggestions = nearest(word, candidates).map((name) => ["awr", ...path, name].join(" "));
  if (suggestions.length > 0) {
    return new CliError(
      CLI_ERROR_CODES.UsageError,
      `\`${typed}\` is not a command. ${didYouMean(suggestions)}`,
      { exitCode: EXIT_CODES.usage, details: { command, suggestions } },
    );
  }
  const list = candidates.join(", ");
  if (path.length === 0) {
    return new CliError(
      "Unsupported",
      `\`${typed}\` is not a command of this awr. Its commands: ${list}. Run \`awr help\` for what each does.`,
      { details: { command } },
    );
  }
  const group = ["awr", ...path].join(" ");
  return usageError(
    `\`${typed}\` is not a command. The commands of \`${group}\`: ${list}. Run \`${group} --help\` for what each does.`,
  );
}
