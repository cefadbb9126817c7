import { LedgerError } from "../errors.js";
import { assertNoSecret } from "../secrets/assert-no-secret.js";
import {
  type ArgumentsProblem,
  argumentsProblem,
  describeArgumentsProblem,
} from "./argument-limits.js";
import { type CheckedSchema, validateInput } from "./validate-input.js";

declare const admitted: unique symbol;

/**
 * A tool's arguments as the gate let them through: checked against the catalog's schema, with
 * only the declared arguments, `null` read as omitted and defaults filled in. Only
 * admitArguments makes one, so whatever takes this type never checks the arguments again.
 */
export type AdmittedInput = Readonly<Record<string, unknown>> & { readonly [admitted]: true };

export interface AdmitOptions {
  /**
   * `files`: the arguments came from a command line and the files it named, each bounded on its
   * own, so the 1 MiB bound on a call's whole arguments does not apply (their depth does).
   */
  argumentsFrom?: "call" | "files" | undefined;
  /**
   * argumentsProblem(args), when the caller has measured the arguments already (the MCP server
   * answers arguments nested too deep as a protocol error, before it looks the tool up), so
   * they are measured once.
   */
  measured?: { readonly problem: ArgumentsProblem | undefined };
}

/**
 * The one gate every entry (MCP on stdio and HTTP, the CLI, the ledger's own API) passes a
 * call's arguments through, once per call: arguments too deep, or over 1 MiB unless they came
 * from files, are InvalidInput; arguments holding a credential are refused (RuleViolation
 * naming the tool and the field path, never the value: before the schema check, whose messages
 * name argument paths); then they are checked against `schema`, the tool's catalog schema for
 * the transport (InvalidInput naming every problem). Domain rules are not checked here: each
 * runs once, in the operation.
 */
export function admitArguments(
  tool: string,
  schema: CheckedSchema,
  args: unknown,
  options: AdmitOptions = {},
): AdmittedInput {
  const problem =
    options.measured === undefined ? argumentsProblem(args) : options.measured.problem;
  if (problem !== undefined && !(problem.kind === "size" && options.argumentsFrom === "files")) {
    throw new LedgerError("InvalidInput", describeArgumentsProblem(problem), { ...problem });
  }
  assertNoSecret(args, `the ${tool} input`);
  return validateInput(tool, schema, args) as AdmittedInput;
}
