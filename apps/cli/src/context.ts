import { resolve } from "node:path";
import { checkExpectedRevision, type ToolName } from "@awr/awr-ledger/catalog";
import type {
  CallOptions,
  OperationBackend,
  OperationInput,
  OperationResult,
} from "./backend/backend.js";
import { CLI_ERROR_CODES, CliError } from "./cli-error.js";
import { type Colors, colorsFor, type OutputStream } from "./output/style.js";
import { findProjectRoot } from "./project-root.js";

/** What one `awr` run talks to: its streams, environment and working directory. */
export interface RunIO {
  stdout: OutputStream;
  stderr: OutputStream;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Aborting it (Ctrl-C in the binary) cancels the operation in flight; the run exits 130. */
  signal?: AbortSignal;
}

/** The global options, parsed from either side of the subcommand. */
export interface GlobalOptions {
  json: boolean;
  color: boolean;
  project?: string;
  url?: string;
  tokenEnv?: string;
  projectKey?: string;
}

/** `--expected-revision` / `--request-id`, taken by every write command. */
export interface WriteFlags {
  expectedRevision?: number;
  requestId?: string;
}

export type BackendFactory = (context: CommandContext) => Promise<OperationBackend>;

/**
 * The state of one run shared by every command: output, the project root, and the backend
 * (opened on first use, closed once by run()).
 */
export class CommandContext {
  readonly io: RunIO;
  globals: GlobalOptions = { json: false, color: true };
  readonly #openBackend: BackendFactory;
  #backend: Promise<OperationBackend> | undefined;

  constructor(io: RunIO, openBackend: BackendFactory) {
    this.io = io;
    this.#openBackend = openBackend;
  }

  get signal(): AbortSignal | undefined {
    return this.io.signal;
  }

  get json(): boolean {
    return this.globals.json;
  }

  get remote(): boolean {
    return this.globals.url !== undefined;
  }

  /** Colours for stdout; plain unless stdout is a terminal (see colorsFor). */
  get colors(): Colors {
    return colorsFor(this.io.stdout, this.io.env, !this.globals.color);
  }

  get errorColors(): Colors {
    return colorsFor(this.io.stderr, this.io.env, !this.globals.color);
  }

  /** `--project` resolved against the working directory, without looking upward. */
  projectStart(): string {
    const { project } = this.globals;
    return project === undefined ? resolve(this.io.cwd) : resolve(this.io.cwd, project);
  }

  /** The initialised project root: `--project` (or the cwd) or its nearest initialised ancestor. */
  async projectRoot(): Promise<string> {
    const start = this.projectStart();
    const root = await findProjectRoot(start);
    if (root === undefined) {
      throw new CliError(
        CLI_ERROR_CODES.NotInitialised,
        `No AWR project at ${start} or above it (no .awr/project.toml). Run \`awr init --accept\` in the project's root, or pass --project DIR.`,
        { details: { searched_from: start } },
      );
    }
    return root;
  }

  backend(): Promise<OperationBackend> {
    this.#backend ??= this.#openBackend(this);
    return this.#backend;
  }

  /** The backend if this run has opened one (never opens it). */
  openedBackend(): Promise<OperationBackend> | undefined {
    return this.#backend;
  }

  /** Runs a read: the local backend refreshes changed sources first. */
  async read(
    tool: ToolName,
    input: OperationInput,
    options: Omit<CallOptions, "signal"> = {},
  ): Promise<OperationResult> {
    const backend = await this.backend();
    return backend.call(tool, input, { ...options, ...this.#callOptions() });
  }

  /**
   * A stale --expected-revision is refused before anything else (before input files are read or
   * sources refreshed), with the same RevisionConflict the tool would answer. Local only: a
   * shared service checks it itself.
   */
  async checkRevision(expected: number | undefined): Promise<void> {
    if (expected === undefined || this.remote) return;
    const backend = await this.backend();
    checkExpectedRevision(expected, await backend.currentRevision({ refresh: false }));
  }

  /**
   * Runs a write with `expected_revision` (the flag, else the revision read just before) and
   * `request_id` (the flag; a remote backend generates one when it is missing). Returns the
   * result and the revision the write was checked against.
   */
  async write(
    tool: ToolName,
    input: OperationInput,
    flags: WriteFlags,
  ): Promise<{ result: OperationResult; expectedRevision: number }> {
    const backend = await this.backend();
    const expected =
      flags.expectedRevision ??
      (await this.#retriedRevision(backend, flags.requestId)) ??
      // A reindex must not refresh first: that would do its work in the revision read.
      (await backend.currentRevision({
        ...this.#callOptions(),
        refresh: tool !== "awr_source_reindex",
      }));
    const args: OperationInput = { ...input, expected_revision: expected };
    if (flags.requestId !== undefined) args["request_id"] = flags.requestId;
    const result = await backend.call(tool, args, this.#callOptions());
    return { result, expectedRevision: expected };
  }

  /** Writes one line (or several) to stdout. */
  out(...lines: string[]): void {
    for (const line of lines) this.io.stdout.write(`${line}\n`);
  }

  /** Prints a result: the JSON document under `--json`, else the human lines. */
  print(value: unknown, human: () => string[]): void {
    if (this.json) {
      this.io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    } else {
      this.out(...human());
    }
  }

  async close(): Promise<void> {
    const pending = this.#backend;
    this.#backend = undefined;
    if (!pending) return;
    try {
      await (await pending).close();
    } catch {
      // Opening failed (already reported) or closing failed after the answer was printed.
    }
  }

  /**
   * A retry of a request id the journal already holds must send the arguments of the first
   * attempt, expected_revision included, to be replayed rather than refused. The ledger's
   * operationGet reports that `expected_revision` (from the journaled arguments). Ledgers that
   * predate it get an estimate: a request answered without a change (started == finished, e.g.
   * a reused session binding or a reindex with nothing to do) was checked at that very revision;
   * otherwise `operation_started` spent the revision right after the check, so `started - 1`.
   * Undefined for a new request id.
   */
  async #retriedRevision(
    backend: OperationBackend,
    requestId: string | undefined,
  ): Promise<number | undefined> {
    if (requestId === undefined) return undefined;
    let previous: OperationResult;
    try {
      previous = await backend.call(
        "awr_operation_get",
        { request_id: requestId },
        this.#callOptions(),
      );
    } catch (error) {
      if ((error as { code?: unknown }).code === "NotFound") return undefined;
      throw error;
    }
    const recorded = previous["expected_revision"];
    if (typeof recorded === "number" && Number.isInteger(recorded)) return recorded;
    const started = previous["started_revision"];
    const finished = previous["finished_revision"];
    if (typeof started !== "number") return undefined;
    if (started === finished) return started;
    return started > 0 ? started - 1 : undefined;
  }

  #callOptions(): { signal?: AbortSignal } {
    return this.io.signal ? { signal: this.io.signal } : {};
  }
}
