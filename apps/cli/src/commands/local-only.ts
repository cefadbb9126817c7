import { usageError } from "../cli-error.js";
import type { CommandContext } from "../context.js";

/** Refuses an operator command in remote mode: it acts on files on the server's disk. */
export function localOnly(context: CommandContext, command: string): void {
  if (context.remote) {
    throw usageError(
      `\`awr ${command}\` works on the project's files, so it runs only on the machine that holds them; drop --url and run it there (with --project DIR).`,
    );
  }
}
