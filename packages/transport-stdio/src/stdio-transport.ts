import { type ChildProcess, spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import {
  CorrelatedTransport,
  type JsonRpcId,
  type JsonRpcMessage,
  LocalErrorCode,
  type OutgoingContext,
  serializeMessage,
  type TransportError,
  type TransportStats,
} from "@awr/jsonrpc-core";
import { ByteRingBuffer } from "./internal/byte-ring-buffer.js";
import { ChildExit, settlesWithin } from "./internal/child-exit.js";
import { sniffResponseId } from "./internal/frame-id.js";
import { openOutputChannel, USE_OUTPUT_CHANNEL } from "./internal/output-channel.js";
import { signalGroup, stopProcessGroup } from "./internal/process-group.js";
import {
  frameTooLarge,
  processExited,
  type ServerFacts,
  spawnFailed,
  transportFailure,
} from "./internal/server-errors.js";
import { LineDecoder, type OversizedFrame } from "./line-decoder.js";
import type { ProcessExit } from "./process-exit.js";
import {
  type ResolvedStdioConfig,
  resolveStdioConfig,
  type StdioTransportConfig,
} from "./stdio-transport-config.js";
import { WriteQueue } from "./write-queue.js";

export interface StdioTransportStats extends TransportStats {
  /** Inbound frames over `maxFrameBytes`: discarded, reported through onError. */
  oversizedFrames: number;
}

/** Once the server exited and its stdout ended, how long the rest of its stderr may take. */
const STDERR_SETTLE_MS = 100;

/**
 * MCP over a child process's stdio: newline-delimited JSON-RPC on stdin/stdout, stderr kept in a
 * bounded ring buffer and attached to every error this transport raises. Node only.
 *
 * Lifecycle: `connect()` spawns the server (no shell, its own process group). The connection is
 * lost when the server's stdout ends: once it has also exited, pending requests reject with
 * PROCESS_EXITED (exit code or signal, stderr tail); if it keeps running with stdout closed it is
 * stopped after `closeGraceMs`. `close()` rejects pending requests with `Transport closed`, ends
 * stdin, waits `closeGraceMs`, sends SIGTERM to the process group, waits `killGraceMs`, sends
 * SIGKILL, then does the same for whatever is left of the group; it resolves once the child has
 * exited and is idempotent.
 */
export class StdioTransport extends CorrelatedTransport {
  /** The server's name, as used in error messages. */
  readonly name: string;
  readonly #config: ResolvedStdioConfig;
  readonly #stderr: ByteRingBuffer;
  readonly #decoder: LineDecoder;
  #child: ChildProcess | undefined;
  /** The server's stdout as we read it: our own channel's reader, or the child's pipe. */
  #stdout: Readable | undefined;
  #exit: ChildExit | undefined;
  #writer: WriteQueue | undefined;
  #stdoutClosed = false;
  #stderrClosed = false;
  /** Set once close() began or the connection was lost: inbound data is ignored from then on. */
  #stopping = false;
  #markStopping: () => void = () => {};
  readonly #stopped = new Promise<void>((resolve) => {
    this.#markStopping = resolve;
  });
  #lostTimer: ReturnType<typeof setTimeout> | undefined;
  #lostError: Error | undefined;
  #teardown: Promise<void> | undefined;
  #oversizedFrames = 0;
  #lastWrite: Promise<void> | undefined;
  #lastWriteReported: Promise<void> = Promise.resolve();
  #explainedFailure: unknown;
  #explanation: Promise<never> | undefined;

  constructor(config: StdioTransportConfig) {
    const resolved = resolveStdioConfig(config);
    super({
      timeout: config.timeout,
      ids: config.ids,
      quarantineSize: config.quarantineSize,
      maxMessageBytes: resolved.maxFrameBytes,
    });
    this.#config = resolved;
    this.name = resolved.name;
    this.#stderr = new ByteRingBuffer(resolved.stderrBufferBytes);
    this.#decoder = new LineDecoder({
      maxFrameBytes: resolved.maxFrameBytes,
      onLine: (line) => this.receiveText(line),
      onOversized: (frame) => this.#rejectFrame(frame),
    });
  }

  /** The server's process id once spawned (also its process group id on POSIX). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** How the server exited, once it has. */
  get exitStatus(): ProcessExit | undefined {
    return this.#exit?.status;
  }

  /** The kept tail of the server's stderr (at most `stderrBufferBytes`). */
  get stderrTail(): string {
    return this.#stderr.toString();
  }

  /** Outbound bytes accepted but not yet flushed to the server's stdin pipe. */
  get queuedBytes(): number {
    return this.#writer?.queuedBytes ?? 0;
  }

  override get stats(): StdioTransportStats {
    return { ...super.stats, oversizedFrames: this.#oversizedFrames };
  }

  /** Closes the transport; resolves once the server (and what it started) is gone. Idempotent. */
  override async close(): Promise<void> {
    await super.close();
    // After a lost connection the base class resolves at once; the teardown may still be running.
    await this.#teardown;
  }

  protected override async openConnection(options: { signal?: AbortSignal }): Promise<void> {
    const { command, args, env, cwd } = this.#config;
    // Where a channel of our own cannot be made (an over-long temp path…), a plain pipe serves.
    const channel = USE_OUTPUT_CHANNEL
      ? await openOutputChannel((chunk) => this.#onStdout(chunk)).catch(() => undefined)
      : undefined;
    // The wait for the channel left room for an abort or a close(): then nothing is spawned.
    if (options.signal?.aborted || this.#stopping) {
      channel?.reader.destroy();
      channel?.serverEnd.destroy();
      this.#stop();
      throw options.signal?.aborted ? options.signal.reason : this.closedError();
    }
    let child: ChildProcess;
    try {
      child = spawn(command, args, {
        cwd,
        env,
        stdio: ["pipe", channel?.serverEnd ?? "pipe", "pipe"],
        shell: false,
        detached: this.#config.processGroup,
        windowsHide: true,
      });
    } catch (error) {
      channel?.reader.destroy();
      this.#stop();
      throw spawnFailed(this.#facts(), this.#config, error);
    } finally {
      // The child has its own copy; ours would keep the channel open after the server exits.
      channel?.serverEnd.destroy();
    }
    const stdout = channel?.reader ?? (child.stdout as Readable);
    this.#child = child;
    this.#stdout = stdout;
    this.#exit = new ChildExit(child);
    this.#writer = new WriteQueue(child.stdin as Writable, {
      wrapError: (error) =>
        transportFailure(
          this.#facts(),
          `cannot write to server "${this.name}": ${describe(error)}`,
          error,
        ),
    });
    this.#listen(child, stdout, child.stderr as Readable, channel === undefined);
    await new Promise<void>((resolve, reject) => {
      const { signal } = options;
      const settle = (error?: unknown) => {
        child.off("spawn", onSpawn);
        child.off("error", onError);
        signal?.removeEventListener("abort", onAbort);
        if (error === undefined) return resolve();
        this.#stop();
        stdout.destroy();
        reject(error);
      };
      const onSpawn = () => settle();
      const onError = (error: Error) => settle(spawnFailed(this.#facts(), this.#config, error));
      const onAbort = () => {
        signalGroup(child, "SIGKILL", this.#config.processGroup);
        settle(signal?.reason);
      };
      child.once("spawn", onSpawn);
      child.once("error", onError);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  protected override writeMessage(
    message: JsonRpcMessage,
    context: OutgoingContext,
  ): Promise<void> | undefined {
    const writer = this.#writer;
    if (!writer) return Promise.reject(this.closedError());
    let frame: string;
    try {
      frame = `${serializeMessage(message)}\n`;
    } catch (error) {
      return Promise.reject(error);
    }
    const id = context.requestId;
    if (id !== undefined) {
      // A request needs no promise per write: its response settles it, and so does a failure.
      writer.post(frame, context, (error) => this.#requestWriteFailed(writer, error, id));
      return undefined;
    }
    const written = writer.write(frame, { signal: () => context.signal });
    // Frames written in one tick share one promise, and so one explanation of a failure.
    if (written !== this.#lastWrite) {
      this.#lastWrite = written;
      this.#lastWriteReported = written.catch((error: unknown) => this.#writeFailed(writer, error));
    }
    return this.#lastWriteReported;
  }

  /** Fails request `id` whose frame could not be written, with the failure's explanation. */
  #requestWriteFailed(writer: WriteQueue, error: unknown, id: JsonRpcId): void {
    // The requests of one batch share one failure, and so one explanation of it.
    if (error !== this.#explainedFailure || this.#explanation === undefined) {
      this.#explainedFailure = error;
      this.#explanation = this.#writeFailed(writer, error);
    }
    this.#explanation.catch((reason: unknown) => this.correlator.fail(id, reason));
  }

  /** A broken pipe usually means the server is exiting: report its exit (code, stderr) instead. */
  async #writeFailed(writer: WriteQueue, error: unknown): Promise<never> {
    const failure = writer.failure;
    if (failure === undefined || error !== failure) throw error;
    await settlesWithin(this.#stopped, this.#config.closeGraceMs);
    throw this.#lostError ?? failure;
  }

  protected override async closeConnection(): Promise<void> {
    this.#stop();
    // Reject pending requests now rather than after the server is gone.
    this.correlator.close(this.closedError());
    this.#teardown ??= this.#terminate(true);
    await this.#teardown;
  }

  protected override closedError(message = "Transport closed"): TransportError {
    return transportFailure(
      this.#facts(),
      message,
      this.#lostError,
      LocalErrorCode.TransportClosed,
    );
  }

  #listen(child: ChildProcess, stdout: Readable, stderr: Readable, piped: boolean): void {
    const stderrText = new StringDecoder("utf8");
    child.on("error", (error) => {
      if (this.connected)
        this.reportError(
          transportFailure(this.#facts(), `server "${this.name}": ${error.message}`, error),
        );
    });
    child.on("exit", () => this.#checkLost());
    // Our own channel hands its reads to #onStdout itself.
    if (piped) stdout.on("data", (chunk: Buffer) => this.#onStdout(chunk));
    stdout.on("end", () => {
      if (!this.#stopping) this.#decoder.end();
    });
    // Stream errors are followed by "close", which is what counts; stderr is diagnostics only.
    stdout.on("error", () => {});
    stderr.on("error", () => {});
    stdout.on("close", () => {
      this.#stdoutClosed = true;
      this.#checkLost();
    });
    stderr.on("close", () => {
      this.#stderrClosed = true;
      this.#checkLost();
    });
    stderr.on("data", (chunk: Buffer) => {
      this.#stderr.push(chunk);
      const onStderr = this.#config.onStderr;
      const text = onStderr ? stderrText.write(chunk) : "";
      if (!onStderr || text === "") return;
      try {
        onStderr(text);
      } catch (error) {
        this.reportError(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  #onStdout(chunk: Buffer): void {
    if (!this.#stopping) this.#decoder.push(chunk);
  }

  /** Decides whether the end of the server's output means the connection is gone. */
  #checkLost(): void {
    if (this.#stopping || !this.connected || !this.#stdoutClosed) return;
    if (this.#lostTimer !== undefined) clearTimeout(this.#lostTimer);
    this.#lostTimer = undefined;
    const exit = this.#exit?.status;
    if (exit && this.#stderrClosed) {
      this.#lose(processExited(this.#facts(), exit));
    } else if (exit) {
      // A grandchild may hold stderr open: take what arrived and go on.
      this.#lostTimer = setTimeout(
        () => this.#lose(processExited(this.#facts(), exit)),
        STDERR_SETTLE_MS,
      );
    } else {
      const message = `server "${this.name}" closed its stdout but kept running; stopping it`;
      this.#lostTimer = setTimeout(
        () =>
          this.#lose(
            transportFailure(this.#facts(), message, undefined, LocalErrorCode.TransportClosed),
          ),
        this.#config.closeGraceMs,
      );
    }
  }

  #lose(error: Error): void {
    if (this.#stopping) return;
    this.#stop();
    this.#lostError = error;
    this.connectionLost(error);
    this.#writer?.fail(error);
    this.#teardown ??= this.#terminate(false);
  }

  #stop(): void {
    this.#stopping = true;
    if (this.#lostTimer !== undefined) clearTimeout(this.#lostTimer);
    this.#lostTimer = undefined;
    this.#markStopping();
  }

  async #terminate(graceful: boolean): Promise<void> {
    const child = this.#child;
    const exit = this.#exit;
    const writer = this.#writer;
    const stdout = this.#stdout;
    if (!child || !exit || !writer || !stdout) return;
    await stopProcessGroup(child, exit, {
      graceful,
      endInput: () => writer.end(),
      closeGraceMs: this.#config.closeGraceMs,
      killGraceMs: this.#config.killGraceMs,
      grouped: this.#config.processGroup,
    });
    writer.fail(this.closedError());
    child.stdin?.destroy();
    stdout.destroy();
    child.stderr?.destroy();
  }

  #rejectFrame(frame: OversizedFrame): void {
    this.#oversizedFrames++;
    // Fail the request the frame answered, when its id can be read, instead of letting it time out.
    const id = sniffResponseId(frame.head, frame.tail);
    const owner = id !== undefined && this.correlator.isPending(id) ? id : undefined;
    const error = frameTooLarge(this.#facts(), frame.bytes, this.#config.maxFrameBytes, owner);
    if (owner !== undefined) this.correlator.fail(owner, error);
    this.reportError(error);
  }

  #facts(): ServerFacts {
    return {
      name: this.name,
      stderrTail: this.stderrTail,
      exit: this.#exit?.status,
      pid: this.pid,
    };
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Creates a {@link StdioTransport}; call `connect()` to start the server. */
export function createStdioTransport(config: StdioTransportConfig): StdioTransport {
  return new StdioTransport(config);
}
