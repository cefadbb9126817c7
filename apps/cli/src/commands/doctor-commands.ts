import { isAbsolute, resolve } from "node:path";
import type { Command } from "commander";
import { CliError } from "../cli-error.js";
import type { CommandContext } from "../context.js";

/**
 * What `awr doctor` needs beyond its catalog commands (catalog/entries/doctor-operations.ts): its
 * `--database PATH` is a path on the command line, so it is taken from the working directory
 * (docs/compatibility/storage.md), and its inspection flags cannot accompany a repair, which
 * acts on the project's own ledger (`--database-only cannot be combined with a repair`).
 */
export function registerDoctorHooks(program: Command, context: CommandContext): void {
  const doctor = program.commands.find((command) => command.name() === "doctor");
  // A command line that does not name doctor builds no doctor command (see buildProgram).
  if (doctor === undefined) return;
  doctor.hook("preAction", (command) => {
    const database = command.getOptionValue("database") as string | undefined;
    if (database !== undefined && !isAbsolute(database)) {
      command.setOptionValue("database", resolve(context.io.cwd, database));
    }
  });
  doctor.hook("preSubcommand", (command) => {
    if (command.getOptionValue("databaseOnly") === true) {
      throw new CliError("InvalidInput", "--database-only cannot be combined with a repair", {
        details: { flag: "--database-only" },
      });
    }
    if (command.getOptionValue("database") !== undefined) {
      throw new CliError(
        "InvalidInput",
        "--database selects a file to inspect; a repair acts on the project's own ledger: drop --database (or run the repair with --project on the project that owns that ledger)",
        { details: { flag: "--database" } },
      );
    }
  });
}
