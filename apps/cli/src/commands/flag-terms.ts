import type { CliCommand } from "@awr/awr-ledger/catalog";
import { CliError } from "../cli-error.js";
import { toCliError } from "../report-error.js";
import type { CommandFlag } from "./command-flags.js";

interface ArgumentIssue {
  path: string;
  message: string;
}

function argumentIssues(details: Record<string, unknown> | undefined): ArgumentIssue[] {
  const issues = details?.["issues"];
  if (!Array.isArray(issues)) return [];
  return issues.filter(
    (issue): issue is ArgumentIssue =>
      issue !== null &&
      typeof issue === "object" &&
      typeof issue.path === "string" &&
      typeof issue.message === "string" &&
      // A source file's issue has a line; an argument's has none.
      issue.line === undefined,
  );
}

/**
 * A tool's refusal of its arguments (InvalidInput with `details.issues`, each naming an
 * argument by its path), said for a person in the command's own words: the flag or operand
 * that set each argument (`limit: must be from 1 to 100` is `--limit must be from 1 to 100`).
 * The JSON form keeps the tool's message word for word (scripts compare it,
 * docs/compatibility/commands.md); only the human message changes, and only when every issue
 * names an argument the command line can set. Anything else is returned as it came.
 */
export function inFlagTerms(
  thrown: unknown,
  command: CliCommand,
  flags: readonly CommandFlag[],
): unknown {
  const error = toCliError(thrown);
  if (error.code !== "InvalidInput" || error.display !== undefined) return thrown;
  const issues = argumentIssues(error.details);
  if (issues.length === 0) return thrown;
  const byField = new Map(flags.filter((f) => f.alias !== true).map((f) => [f.field, f]));
  const said: string[] = [];
  for (const { path, message } of issues) {
    const field = path.split(/[.[]/)[0] ?? "";
    const operand = command.operands?.find((o) => o.field === field && !o.optional)?.name;
    const flag = byField.get(field);
    const name = operand ?? flag?.flag;
    if (name === undefined) return thrown;
    const within =
      path.length > field.length && flag?.kind === "file" ? ` (in its file, at ${path})` : "";
    said.push(`${name}${within} ${message}`);
  }
  const typed = `awr ${command.path.join(" ")}`;
  return new CliError(error.code, error.message, {
    ...(error.details === undefined ? {} : { details: error.details }),
    exitCode: error.exitCode,
    cause: error,
    ...(error.result === undefined ? {} : { result: error.result }),
    display: `Invalid value for \`${typed}\`: ${said.join("; ")}.`,
    next: `Run \`${typed} --help\` for what each flag takes.`,
  });
}
