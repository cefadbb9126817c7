import { randomUUID } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import type { CatalogOperation, CliCommand, CliFile } from "@awr/awr-ledger/catalog";
import { CliError, usageError } from "../cli-error.js";
import type { CommandContext } from "../context.js";
import { type CommandFlag, requiredFlags } from "./command-flags.js";

/** What commander parsed for one catalog command: its operands and its options by flag. */
export interface ParsedCommand {
  readonly operands: readonly (string | undefined)[];
  /** Option values by flag (`--next-action` → its value). */
  readonly values: ReadonlyMap<string, unknown>;
}

/** An InvalidInput about a file the command line named (exit 1: the file, not the line, is wrong). */
function badFile(message: string, path: string): CliError {
  return new CliError("InvalidInput", message, { details: { path } });
}

/**
 * A file that is not JSON: where (line and column) and what is wrong, never any of its content
 * (JSON.parse's message quotes the text around the error, and the file may hold a credential).
 */
async function notJson(path: string, absolute: string, text: string): Promise<CliError> {
  // Loaded only for a broken file: a command that reads a good one never pays for the scanner.
  const { findJsonSyntaxError } = await import("../internal/json-syntax.js");
  const found = findJsonSyntaxError(text);
  if (found === undefined) {
    return badFile(`${path} is not valid JSON; check it with a JSON validator.`, absolute);
  }
  const { line, column, problem } = found;
  return new CliError(
    "InvalidInput",
    `${path} is not valid JSON at line ${line}, column ${column}: ${problem}. The file's content is not shown, as it may hold a secret.`,
    {
      details: { path: absolute, line, column },
      next: `Fix the JSON in ${path} at line ${line}, column ${column}, then run the command again.`,
    },
  );
}

/** The JSON value of a file named on the command line, read within its size limit. */
export async function readJsonFile(
  context: CommandContext,
  path: string,
  file: CliFile,
): Promise<unknown> {
  const base = file.base === "cwd" || context.remote ? context.io.cwd : await context.projectRoot();
  const absolute = isAbsolute(path) ? path : resolve(base, path);
  const info = await stat(absolute).catch(() => undefined);
  if (info === undefined || !info.isFile()) {
    throw badFile(`${path} is not a readable file (looked for ${absolute}).`, absolute);
  }
  if (info.size > file.maxBytes) {
    throw badFile(`${path} is ${info.size} bytes; the limit is ${file.maxBytes}.`, absolute);
  }
  const text = await readFile(absolute, "utf8");
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw await notJson(path, absolute, text);
  }
}

/**
 * The command line's arguments before any file is read: operands, flags, switches, fixed and
 * made-up values. Every missing required flag is reported at once, as one usage error (exit 2),
 * unless an input file may still supply them.
 */
export function lineInput(
  operation: CatalogOperation,
  command: CliCommand,
  flags: readonly CommandFlag[],
  parsed: ParsedCommand,
): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const flag of flags) {
    const value = parsed.values.get(flag.flag);
    if (value === undefined || flag.kind === "file") continue;
    const given = flag.kind === "switch" ? flag.value : value;
    if (input[flag.field] !== undefined && input[flag.field] !== given) {
      throw usageError(`${flag.flag} and another flag both set ${flag.field}; give one of them.`);
    }
    input[flag.field] = given;
  }
  for (const [index, operand] of (command.operands ?? []).entries()) {
    const value = parsed.operands[index];
    if (value === undefined) continue;
    if (input[operand.field] !== undefined && input[operand.field] !== value) {
      throw usageError(
        `${operand.name} is given twice with different values (${value} and ${String(input[operand.field])}); give it once.`,
      );
    }
    input[operand.field] = value;
  }
  Object.assign(input, command.fixed);
  for (const [field, value] of Object.entries(command.defaults ?? {})) {
    if (input[field] === undefined) input[field] = value;
  }
  for (const field of command.generated ?? []) {
    if (input[field] === undefined) input[field] = `cli-${randomUUID()}`;
  }
  const fromFile = command.inputFile !== undefined && parsed.values.has(command.inputFile.flag);
  if (!fromFile) {
    // A file-valued flag's field is filled later from its file (withFiles), so naming the file
    // is giving the field.
    const fromFiles = new Set(
      flags.filter((f) => f.kind === "file" && parsed.values.has(f.flag)).map((f) => f.field),
    );
    const missing = requiredFlags(operation, command, flags).filter((group) =>
      group.fields.every((field) => input[field] === undefined && !fromFiles.has(field)),
    );
    if (missing.length > 0) {
      const operandOf = (field: string) =>
        command.operands?.find((o) => o.field === field && !o.optional)?.name;
      const labels = missing.map((group) => operandOf(group.fields[0] ?? "") ?? group.label);
      throw usageError(
        `\`awr ${command.path.join(" ")}\` is missing ${labels.join(", ")}. Run \`awr ${command.path.join(" ")} --help\` for what each means.`,
      );
    }
    const oneOf = command.atLeastOne ?? [];
    if (oneOf.length > 0 && oneOf.every((field) => input[field] === undefined)) {
      const byField = new Map(flags.filter((f) => f.alias !== true).map((f) => [f.field, f.flag]));
      const labels = oneOf.map(
        (field) =>
          command.operands?.find((o) => o.field === field)?.name ?? byField.get(field) ?? field,
      );
      const last = labels.pop();
      throw usageError(
        `\`awr ${command.path.join(" ")}\` needs ${labels.join(", ")} or ${last}. Run \`awr ${command.path.join(" ")} --help\` for what each means.`,
      );
    }
  }
  return input;
}

/**
 * Adds what the named files hold: the whole arguments of `--input FILE` (renamed to the tool's
 * names; the command line's own flags win) and each JSON-valued flag's file. Bad files are
 * InvalidInput (exit 1), as a bad value over MCP would be.
 */
export async function withFiles(
  context: CommandContext,
  command: CliCommand,
  flags: readonly CommandFlag[],
  parsed: ParsedCommand,
  lineArgs: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  let input: Record<string, unknown> = { ...lineArgs };
  const spec = command.inputFile;
  const inputPath = spec === undefined ? undefined : parsed.values.get(spec.flag);
  if (spec !== undefined && typeof inputPath === "string") {
    const value = await readJsonFile(context, inputPath, spec);
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw badFile(`${inputPath} must hold a JSON object of the arguments.`, inputPath);
    }
    const fromFile: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) {
      const name = Object.hasOwn(spec.rename, key) ? (spec.rename[key] as string) : key;
      Object.defineProperty(fromFile, name, { value: field, enumerable: true, writable: true });
    }
    input = { ...fromFile, ...lineArgs };
  }
  for (const flag of flags) {
    const path = parsed.values.get(flag.flag);
    const file = command.files?.[flag.field];
    if (flag.kind !== "file" || typeof path !== "string" || file === undefined) continue;
    input[flag.field] = await readJsonFile(context, path, file);
  }
  return input;
}
