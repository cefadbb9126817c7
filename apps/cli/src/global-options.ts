/**
 * The options every command accepts on either side of the subcommand. Flags take no value;
 * valued options take the next word (or `--name=value`).
 */
const GLOBAL_FLAGS = new Set(["--json", "--no-color"]);
const GLOBAL_VALUED = new Set(["--project", "--url", "--token-env", "--project-key"]);

/**
 * Moves the global options to the front of argv, keeping their order, so that commander parses
 * them as the program's options wherever the user typed them (`awr status --json` and
 * `awr --json status` mean the same). Scanning stops at `--`, after which every word is an
 * operand. A valued option at the very end keeps no value, and commander reports it missing.
 */
export function hoistGlobalOptions(argv: readonly string[]): string[] {
  const globals: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    if (word === "--") {
      rest.push(...argv.slice(i));
      break;
    }
    const name = word.includes("=") ? word.slice(0, word.indexOf("=")) : word;
    if (GLOBAL_FLAGS.has(word)) {
      globals.push(word);
    } else if (GLOBAL_VALUED.has(name)) {
      globals.push(word);
      if (name === word && i + 1 < argv.length) {
        globals.push(argv[i + 1] as string);
        i++;
      }
    } else {
      rest.push(word);
    }
  }
  return [...globals, ...rest];
}

/**
 * The words of argv that are neither options nor the values of global valued options, up to
 * `--`: the command's words first (`awr --project . work show W-1` gives work, show, W-1).
 * The value of a command's own option counts as a word, so only the leading words name commands.
 */
export function commandWords(argv: readonly string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    if (word === "--") break;
    if (GLOBAL_VALUED.has(word)) {
      i++;
    } else if (!word.startsWith("-")) {
      words.push(word);
    }
  }
  return words;
}

/**
 * The command word of argv: the first word that is neither an option nor the value of a global
 * valued option (`awr --project . capabilities` names `capabilities`, not `.`). Scanning stops
 * at `--`. Undefined when there is none.
 */
export function commandWord(argv: readonly string[]): string | undefined {
  return commandWords(argv)[0];
}
