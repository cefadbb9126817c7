import type { CatalogOperation, CliCommand, JsonSchema } from "@awr/awr-ledger/catalog";

/** How a command-line flag carries its argument. */
export type FlagKind = "text" | "integer" | "switch" | "list" | "file";

/** One flag of a catalog command, derived from the tool's input schema and its CLI spec. */
export interface CommandFlag {
  /** `--next-action` */
  readonly flag: string;
  /** The tool argument it sets. */
  readonly field: string;
  readonly kind: FlagKind;
  /** A switch's value (true for a boolean argument). */
  readonly value?: unknown;
  /** The enum of a text argument, for help only (the tool checks values itself). */
  readonly choices?: readonly string[];
  /** Another name for the flag of `field` (kept out of the help). */
  readonly alias?: true;
}

/** The written form of an argument's flag: `next_action` is `--next-action`. */
export function flagOf(field: string): string {
  return `--${field.replace(/_/g, "-")}`;
}

function kindOf(schema: JsonSchema): FlagKind {
  const types = [schema.type ?? []].flat();
  if (types.includes("boolean")) return "switch";
  if (types.includes("array")) return "list";
  if (types.includes("integer")) return "integer";
  if (types.includes("object")) return "file";
  return "text";
}

/** Arguments every write takes; the CLI adds their flags itself. */
const WRITE_FIELDS = new Set(["expected_revision", "request_id"]);

/**
 * The flags of one CLI command: every argument of the tool's schema but the fixed ones and the
 * ones the spec hides, under `--name-with-dashes` unless the spec renames it, plus its switches.
 */
export function commandFlags(operation: CatalogOperation, command: CliCommand): CommandFlag[] {
  const flags: CommandFlag[] = [];
  for (const [field, schema] of Object.entries(operation.input.properties)) {
    if (WRITE_FIELDS.has(field) || command.fixed?.[field] !== undefined) continue;
    const renamed = command.flags?.[field];
    if (renamed === null) continue;
    const kind = command.files?.[field] === undefined ? kindOf(schema) : "file";
    const choices = schema.enum?.filter((e): e is string => e !== null);
    flags.push({
      flag: renamed ?? flagOf(field),
      field,
      kind,
      ...(kind === "switch" ? { value: true } : {}),
      ...(choices !== undefined ? { choices } : {}),
    });
  }
  for (const [flag, field] of Object.entries(command.aliases ?? {})) {
    const main = flags.find((f) => f.field === field);
    if (main !== undefined) flags.push({ ...main, flag, alias: true });
  }
  for (const sw of command.switches ?? []) {
    flags.push({ flag: sw.flag, field: sw.field, kind: "switch", value: sw.value });
  }
  return flags;
}

/**
 * The arguments a command line must give (required by the schema, not fixed, not made up by
 * the CLI), as `--flag` names; a session selector counts as one (`--session or --conversation`).
 */
export function requiredFlags(
  operation: CatalogOperation,
  command: CliCommand,
  flags: readonly CommandFlag[],
): { fields: string[]; label: string }[] {
  const byField = new Map(flags.map((f) => [f.field, f.flag]));
  const label = (field: string) => byField.get(field) ?? flagOf(field);
  const required = (operation.input.required ?? []).filter(
    (field) =>
      !WRITE_FIELDS.has(field) &&
      command.fixed?.[field] === undefined &&
      command.defaults?.[field] === undefined &&
      !(command.generated ?? []).includes(field),
  );
  const groups = required.map((field) => ({ fields: [field], label: label(field) }));
  for (const alternative of operation.input.anyOf === undefined ? [] : [operation.input.anyOf]) {
    const fields = alternative.flatMap((a) => a.required ?? []);
    groups.push({ fields, label: fields.map(label).join(" or ") });
  }
  return groups;
}
