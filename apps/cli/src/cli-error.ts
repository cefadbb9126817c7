/**
 * Exit codes of `awr`. 0 success; 1 a domain error (the ledger or the service refused, or the
 * project/service could not be reached); 2 a usage error (the command line itself is wrong);
 * 130 interrupted (Ctrl-C / an aborted run), as shells expect.
 */
export const EXIT_CODES = {
  ok: 0,
  domain: 1,
  usage: 2,
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/**
 * Codes the CLI raises itself, beside the ledger's domain codes (NotFound, RevisionConflict…),
 * which pass through unchanged. Under `--json` every error is `{code, message, details?}`.
 */
export const CLI_ERROR_CODES = {
  /**
   * The command line is wrong (unknown command or option, missing or malformed value): the
   * original's InvalidInput, exit 2 (a wrong value the tool itself refuses is exit 1).
   */
  UsageError: "InvalidInput",
  /**
   * Not an initialised project: no `.awr/project.toml` in the directory or any ancestor, or a
   * project whose ledger does not exist yet (a fresh clone: the manifest without `.awr/state.db`).
   * Run `awr init --accept`; the failed command created nothing.
   */
  NotInitialised: "NotInitialised",
  /** The remote service could not be reached, refused the credential or broke the connection. */
  RemoteError: "RemoteError",
  /** The run was aborted (Ctrl-C) before it finished. */
  Cancelled: "Cancelled",
  /** A registry file failed `awr registry check`. */
  RegistryInvalid: "RegistryInvalid",
  /** Something unexpected (a bug or a broken installation); the message says what. */
  Internal: "Internal",
} as const;

export type CliErrorCode = (typeof CLI_ERROR_CODES)[keyof typeof CLI_ERROR_CODES];

/** The JSON form of every error `awr --json` prints on stderr. */
export interface ErrorPayload {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/**
 * An error the CLI reports as `{code, message, details?}` with an exit code. Domain errors from
 * the ledger or a service keep their code; `exitCode` is 1 unless the command line was at fault.
 */
export class CliError extends Error {
  override readonly name = "CliError";
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;
  readonly exitCode: ExitCode;
  /** A partial result that came with the error: printed on stdout under --json. */
  readonly result: Record<string, unknown> | undefined;
  /**
   * The step that fixes this error, when the code that raised it knows it: the human output's
   * `next:` line (never part of the JSON form). Undefined leaves the choice to the error's code.
   */
  readonly next: string | undefined;
  /**
   * The message as a person reads it, when it must differ from the JSON form's: a tool's own
   * message stays word for word under --json, in the tool's terms, while the human output says
   * it in the command line's (its flags). Undefined: the message, for both.
   */
  readonly display: string | undefined;

  constructor(
    code: string,
    message: string,
    options: {
      details?: Record<string, unknown>;
      exitCode?: ExitCode;
      cause?: unknown;
      result?: Record<string, unknown>;
      next?: string;
      display?: string;
    } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details;
    this.exitCode = options.exitCode ?? EXIT_CODES.domain;
    this.result = options.result;
    this.next = options.next;
    this.display = options.display;
  }

  get usage(): boolean {
    return this.exitCode === EXIT_CODES.usage;
  }

  toPayload(): ErrorPayload {
    const payload: ErrorPayload = { code: this.code, message: this.message };
    if (this.details !== undefined) payload.details = this.details;
    return payload;
  }
}

export function usageError(message: string): CliError {
  return new CliError(CLI_ERROR_CODES.UsageError, message, { exitCode: EXIT_CODES.usage });
}
