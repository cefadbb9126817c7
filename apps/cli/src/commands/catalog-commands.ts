import {
  type CatalogOperation,
  type CliCommand,
  OPERATION_LIST,
  takesRequestId,
} from "@awr/awr-ledger/catalog";
import type { Command } from "commander";
import { usageError } from "../cli-error.js";
import type { CommandContext } from "../context.js";
import { Option } from "../internal/commander.js";
import { doctorFailure, doctorLines, repairLines } from "../render/doctor-view.js";
import { readView, writeLines } from "../render/views.js";
import { type CommandFlag, commandFlags } from "./command-flags.js";
import { lineInput, type ParsedCommand, withFiles } from "./command-input.js";
import { fieldHelp } from "./field-help.js";
import { inFlagTerms } from "./flag-terms.js";
import { localOnly } from "./local-only.js";
import { collect, integer } from "./option-parsers.js";

/** One line per command group, for `awr --help`. */
const GROUPS: Readonly<Record<string, string>> = {
  work: "show work items and move them through their states",
  session: "sessions bind a host conversation to one unit of work: claims, checkpoints, waits",
  event: "the project's append-only event log",
  evidence: "evidence that work meets its acceptance criteria",
  context: "compile context packets for agents",
  operation: "find out whether a write happened (after a timeout, a crash or a lost answer)",
  source: "the project's planning sources (Markdown/YAML) and their index",
  branch: "work branches: named lines of runtime work (never a Git checkout)",
  repair: "apply exactly one named doctor repair to one object (checked again inside the write)",
};

export const WRITE_HELP = `
Writes check --expected-revision against the project's revision and change nothing on a
mismatch (RevisionConflict). Without the flag, awr reads the current revision just before the
write. --request-id journals the write, so a retry with the same id and arguments replays the
recorded result (it spends three revisions instead of one; see docs/troubleshooting.md).`;

/** The command group `name` of `program`, created on first use. */
export function group(program: Command, name: string): Command {
  const existing = program.commands.find((c) => c.name() === name);
  return existing ?? program.command(name).description(GROUPS[name] ?? name);
}

function placeholder(flag: CommandFlag): string {
  if (flag.kind === "file") return "<file>";
  if (flag.kind === "integer") return "<n>";
  return `<${flag.flag.slice(2)}>`;
}

function optionFor(flag: CommandFlag, tool: string): Option {
  const help = fieldHelp(flag.field, flag.choices, tool);
  const option =
    flag.kind === "switch"
      ? new Option(flag.flag, help)
      : new Option(`${flag.flag} ${placeholder(flag)}`, help);
  if (flag.alias === true) option.hideHelp();
  if (flag.kind === "switch") return option;
  if (flag.kind === "list") return option.argParser(collect);
  // Only the shape is checked here (a usage error); the range is the tool's to refuse.
  if (flag.kind === "integer") return option.argParser(integer());
  return option;
}

/** Adds one catalog command: its operands, its flags from the tool's schema, its action. */
function addCommand(
  program: Command,
  context: CommandContext,
  operation: CatalogOperation,
  spec: CliCommand,
): void {
  const parent = spec.path.slice(0, -1).reduce<Command>((at, name) => group(at, name), program);
  const command = parent.command(spec.path.at(-1) as string).description(spec.summary);
  for (const operand of spec.operands ?? []) {
    // Every operand is optional to commander: missing ones are reported together below.
    command.argument(
      `[${operand.name.toLowerCase()}]`,
      fieldHelp(operand.field, undefined, operation.tool),
    );
  }
  const flags = commandFlags(operation, spec);
  const options = new Map<string, Option>();
  for (const flag of flags) {
    const option = optionFor(flag, operation.tool);
    options.set(flag.flag, option);
    command.addOption(option);
  }
  for (const call of spec.callOptions ?? []) {
    const usage = call.placeholder === undefined ? call.flag : `${call.flag} ${call.placeholder}`;
    const option = new Option(usage, call.description);
    command.addOption(call.integer === true ? option.argParser(integer()) : option);
  }
  if (spec.inputFile !== undefined) {
    const option = new Option(
      `${spec.inputFile.flag} <file>`,
      "a JSON file holding the arguments (the flags given win)",
    );
    options.set(spec.inputFile.flag, option);
    command.addOption(option);
  }
  if (operation.kind === "write") {
    command.addOption(
      new Option(
        "--expected-revision <n>",
        "the project revision you last saw (default: the current one)",
      ).argParser(integer()),
    );
    if (takesRequestId(operation)) {
      command.option(
        "--request-id <id>",
        "journal the write under this id (1..256 bytes); a retry with it replays",
      );
    }
    command.addHelpText("after", WRITE_HELP);
  }
  command.action(async (...args: unknown[]) => {
    // A CLI-only operation has no tool a remote service could answer.
    if (operation.surface === "cli") localOnly(context, spec.path.join(" "));
    const operands = args.slice(0, spec.operands?.length ?? 0) as (string | undefined)[];
    const given = command.opts<Record<string, unknown>>();
    const values = new Map<string, unknown>();
    for (const [flag, option] of options) {
      const value = given[option.attributeName()];
      // `--claim` and `--no-claim` share one attribute: each counts only when it set it.
      const set = option.isBoolean() ? value === !option.negate : value !== undefined;
      if (set) values.set(flag, value);
    }
    const parsed: ParsedCommand = { operands, values };
    const fromLine = lineInput(operation, spec, flags, parsed);
    const headline = [...spec.path, ...operands.filter((o) => o !== undefined)].join(" ");
    if (operation.kind === "read") {
      const input = await withFiles(context, spec, flags, parsed, fromLine);
      const callOptions: Record<string, unknown> = {};
      for (const call of spec.callOptions ?? []) {
        const value = given[new Option(call.flag).attributeName()];
        if (value === undefined) continue;
        if (context.remote) {
          throw usageError(
            `\`awr ${spec.path.join(" ")} ${call.flag}\` has no tool argument a shared service could answer; run it where the project is (drop --url)${call.option === "contextBranch" ? ", or see `awr branch context --help`" : ""}`,
          );
        }
        callOptions[call.option] = value;
      }
      const result = await context
        .read(operation.tool, input, callOptions)
        .catch((error: unknown) => Promise.reject(inFlagTerms(error, spec, flags)));
      if (spec.view === "doctor") {
        context.print(result, () => doctorLines(result, context.colors));
        const failure = doctorFailure(result);
        if (failure !== undefined) throw failure;
        return;
      }
      context.print(result, () => readView(spec.view, result, context.colors));
      return;
    }
    const flagged = given["expectedRevision"] as number | undefined;
    // A stale revision is refused before any file is read, as the tool would refuse it.
    await context.checkRevision(flagged);
    const input = await withFiles(context, spec, flags, parsed, fromLine);
    // An --input file that holds the whole request (`work manage`) may carry its own revision.
    const fromFile = input["expected_revision"];
    const expected =
      flagged ??
      (spec.inputFile !== undefined && typeof fromFile === "number" ? fromFile : undefined);
    const requestId = given["requestId"] as string | undefined;
    const { result, expectedRevision } = await context
      .write(operation.tool, input, {
        ...(expected === undefined ? {} : { expectedRevision: expected }),
        ...(requestId === undefined ? {} : { requestId }),
      })
      .catch((error: unknown) => Promise.reject(inFlagTerms(error, spec, flags)));
    context.print(result, () =>
      spec.view === "doctor-repair"
        ? repairLines(result, context.colors, expectedRevision)
        : writeLines(result, context.colors, headline, expectedRevision),
    );
  });
}

/** Words after which commander prints help, which lists every command. */
const HELP_WORDS = new Set(["help", "-h", "--help"]);

/**
 * The commands of the operation catalog, under the words their CLI specs name. With `words` (the
 * words of the command line), a line that names a catalog command's first word gets only the
 * catalog commands under the first words it holds: a run builds what it can run, not the whole
 * tree (about fifty commands, a measurable share of a cold start). Any other line (help, no
 * command, an unknown one, a command outside the catalog) gets them all, as before.
 */
export function registerCatalogCommands(
  program: Command,
  context: CommandContext,
  words?: readonly string[],
): void {
  const specs = OPERATION_LIST.flatMap((operation) =>
    operation.cli.map((spec) => ({ operation, spec, first: spec.path[0] as string })),
  );
  const named = new Set(words);
  const narrow =
    ![...named].some((word) => HELP_WORDS.has(word)) && specs.some((s) => named.has(s.first));
  for (const { operation, spec, first } of specs) {
    if (!narrow || named.has(first)) addCommand(program, context, operation, spec);
  }
}
