/**
 * How a catalog operation appears on the `awr` command line. The CLI builds its commands from
 * these: every input argument becomes `--its-name-with-dashes` unless a spec entry says
 * otherwise, so the flags and the tool's arguments cannot drift apart. Data only: the CLI owns
 * parsing, help text and rendering.
 */
export interface CliCommand {
  /** The words after `awr`, e.g. `["work", "progress"]`. */
  readonly path: readonly string[];
  readonly summary: string;
  /** Positional operands in order; each also keeps its flag unless `flags` hides it. */
  readonly operands?: readonly CliOperand[];
  /** A flag name per argument where it is not `--name-with-dashes`; null: no flag. */
  readonly flags?: Readonly<Record<string, string | null>>;
  /** Further flag names accepted for an argument (docs/compatibility/commands.md), by flag. */
  readonly aliases?: Readonly<Record<string, string>>;
  /** Arguments whose flag names a JSON file holding the value. */
  readonly files?: Readonly<Record<string, CliFile>>;
  /** A flag naming a JSON file that holds the arguments themselves (flags override it). */
  readonly inputFile?: CliInputFile;
  /** Arguments this command fixes (e.g. `action: "progress"`): no flag, always sent. */
  readonly fixed?: Readonly<Record<string, unknown>>;
  /** Values the command line sends when a flag is not given (docs/compatibility/commands.md). */
  readonly defaults?: Readonly<Record<string, unknown>>;
  /** Flags without a value that set an argument (resume: `--claim` acquires). */
  readonly switches?: readonly CliSwitch[];
  /**
   * Arguments of which the command line must give at least one, though the schema requires
   * none of them (the tool refuses a call without any, in its own terms): the CLI says so first,
   * in flags, as a usage error.
   */
  readonly atLeastOne?: readonly string[];
  /** Required arguments the CLI makes up when not given: a fresh conversation id per run. */
  readonly generated?: readonly string[];
  /** CLI-only flags that set a call option instead of a tool argument (no tool expresses them). */
  readonly callOptions?: readonly CliCallOption[];
  /** The CLI's human rendering of the result (its own views); a generic one when absent. */
  readonly view?:
    | "status"
    | "ready"
    | "work"
    | "search"
    | "context"
    | "prepare"
    | "doctor"
    | "doctor-repair";
}

export interface CliOperand {
  readonly field: string;
  /** As shown in usage, e.g. `WORK`. */
  readonly name: string;
  /** Optional operands may be given as their flag instead. */
  readonly optional?: boolean;
}

export interface CliFile {
  /** Relative paths resolve against the project root or the working directory. */
  readonly base: "project" | "cwd";
  readonly maxBytes: number;
}

export interface CliInputFile extends CliFile {
  readonly flag: string;
  /** File field name to argument name (the CLI's EvidenceDraft names). */
  readonly rename: Readonly<Record<string, string>>;
}

export interface CliCallOption {
  readonly flag: string;
  /** As shown in usage, e.g. `<id>`; absent: a switch that takes no value (sets `true`). */
  readonly placeholder?: string;
  /** The OperationOptions field the flag's value goes to. */
  readonly option:
    | "contextBranch"
    | "statusQueue"
    | "statusOffset"
    | "statusPageSize"
    | "cachedProjection";
  /** The flag takes a whole number (else a string). */
  readonly integer?: boolean;
  readonly description: string;
}

export interface CliSwitch {
  readonly flag: string;
  readonly field: string;
  readonly value: unknown;
  readonly description: string;
}
