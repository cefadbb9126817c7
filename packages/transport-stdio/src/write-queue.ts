import type { Writable } from "node:stream";

export interface WriteOptions {
  /**
   * While the write is still queued, aborting it removes it from the queue. A function is called
   * only if the write has to wait in the queue (a request's signal costs CPU to create).
   */
  signal?: AbortSignal | (() => AbortSignal);
  /**
   * What an abort means: `true` for a request whose caller no longer waits (the write resolves
   * quietly: nothing was sent), `false` for a write whose caller must learn it did not happen
   * (it rejects with `signal.reason`).
   */
  dropQuietly?: boolean;
}

export interface WriteQueueOptions {
  /** Turns a stream failure (EPIPE, destroyed stream…) into the error callers see. */
  wrapError(error: unknown): Error;
}

interface Item {
  data: Buffer;
  resolve(): void;
  reject(reason: unknown): void;
  signal: AbortSignal | undefined;
  dropQuietly: boolean;
  removed: boolean;
}

/**
 * Writes frames to a stream in call order, honouring backpressure: while the stream has room,
 * the text frames of one tick are joined and handed over as one chunk when the tick ends (one
 * syscall for many calls in flight); once it is full, frames queue here and go one after another
 * as it drains, so the stream's own buffer never holds more than its high-water mark plus one
 * frame. Each write resolves once the stream flushed its bytes to the OS (frames of one chunk
 * share one promise), or rejects with the wrapped stream error.
 * A stream error (EPIPE when the reader is gone) fails every write that is still queued; it is
 * never left to become an uncaught exception.
 */
export class WriteQueue {
  readonly #stream: Writable;
  readonly #wrapError: (error: unknown) => Error;
  #items: Item[] = [];
  #head = 0;
  #queuedBytes = 0;
  #pumping = false;
  #failure: Error | undefined;
  #endRequested = false;
  readonly #watched = new WeakMap<AbortSignal, Set<Item>>();
  /** Text accepted in this tick: it goes to the stream as one chunk when the tick ends. */
  #batch = "";
  #batchBytes = 0;
  #batchOpen = false;
  /** The promise of the batch's write() callers, made only once one of them asks. */
  #batchWritten: Promise<void> | undefined;
  #resolveBatch: () => void = () => {};
  #rejectBatch: (reason: unknown) => void = () => {};
  /** The failure callbacks of the batch's post() callers. */
  #batchFailures: ((error: unknown) => void)[] | undefined;
  readonly #flush = () => this.#flushBatch();

  constructor(stream: Writable, options: WriteQueueOptions) {
    this.#stream = stream;
    this.#wrapError = options.wrapError;
    stream.on("error", (error: unknown) => this.fail(this.#wrapError(error)));
  }

  /** Bytes accepted but not yet flushed to the OS: still queued here plus buffered in the stream. */
  get queuedBytes(): number {
    return this.#queuedBytes + this.#batchBytes + this.#stream.writableLength;
  }

  /** The error that broke the stream, if any; later writes reject with it at once. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  write(data: string | Buffer, options: WriteOptions = {}): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#endRequested) return Promise.reject(this.#wrapError(new Error("write after end")));
    if (typeof options.signal !== "function" && options.signal?.aborted)
      return options.dropQuietly ? Promise.resolve() : Promise.reject(options.signal.reason);
    if (this.#idle()) {
      // Fast path: nothing is queued and the stream has room, so the frame is handed over at
      // once (no copy, no abort bookkeeping: once handed over it cannot be taken back anyway).
      if (typeof data === "string") return this.#addToBatch(data);
      this.#flushBatch();
      return new Promise<void>((resolve, reject) => {
        this.#stream.write(data, (error) => this.#written(error, resolve, reject));
      });
    }
    const signal = typeof options.signal === "function" ? options.signal() : options.signal;
    if (signal?.aborted)
      return options.dropQuietly ? Promise.resolve() : Promise.reject(signal.reason);
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    return new Promise<void>((resolve, reject) => {
      const item: Item = {
        data: bytes,
        resolve,
        reject,
        signal,
        dropQuietly: options.dropQuietly ?? false,
        removed: false,
      };
      if (signal) this.#watch(signal, item);
      this.#items.push(item);
      this.#queuedBytes += bytes.length;
      void this.#pump();
    });
  }

  /**
   * write() for a text frame whose sender only needs to hear of a failure (a request: its
   * response tells the rest): no promise is made, `onFailure` runs if the frame cannot be
   * written. `sender.signal` is read only if the frame has to queue; aborting it then drops the
   * frame quietly.
   */
  post(
    data: string,
    sender: { readonly signal: AbortSignal },
    onFailure: (error: unknown) => void,
  ): void {
    if (this.#failure === undefined && !this.#endRequested && this.#idle()) {
      this.#append(data);
      this.#batchFailures ??= [];
      this.#batchFailures.push(onFailure);
      return;
    }
    this.write(data, { signal: () => sender.signal, dropQuietly: true }).catch(onFailure);
  }

  /** Ends the stream once every queued frame has been handed to it. */
  end(): void {
    this.#endRequested = true;
    void this.#pump();
  }

  /** Rejects every queued write with `error` and refuses later ones. Idempotent. */
  fail(error: Error): void {
    this.#failure ??= error;
    this.#flushBatch();
    for (let index = this.#head; index < this.#items.length; index++) {
      const item = this.#items[index] as Item;
      if (item.removed) continue;
      this.#remove(item);
      item.reject(this.#failure);
    }
    this.#items = [];
    this.#head = 0;
  }

  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      // Frames accepted before the queued ones go first.
      this.#flushBatch();
      while (!this.#failure) {
        // A fast-path write may have filled the stream: wait before handing it another frame.
        if (this.#stream.writableNeedDrain) await this.#drained();
        const item = this.#shift();
        if (!item) break;
        this.#stream.write(item.data, (error) => this.#written(error, item.resolve, item.reject));
      }
      if (this.#endRequested && !this.#failure && !this.#stream.writableEnded) this.#stream.end();
    } finally {
      this.#pumping = false;
    }
  }

  #idle(): boolean {
    const stream = this.#stream;
    return (
      !this.#pumping &&
      this.#head >= this.#items.length &&
      !stream.writableNeedDrain &&
      stream.writableLength + this.#batchBytes < stream.writableHighWaterMark
    );
  }

  /**
   * Frames written in the same tick (many calls in flight answer in one read) leave in one
   * write: one chunk and one syscall instead of one per frame. Their write() callers share one
   * promise; post() callers only leave a failure callback (see #append).
   */
  #addToBatch(text: string): Promise<void> {
    this.#append(text);
    this.#batchWritten ??= new Promise<void>((resolve, reject) => {
      this.#resolveBatch = resolve;
      this.#rejectBatch = reject;
    });
    return this.#batchWritten;
  }

  /** Adds a frame to this tick's batch; the first one schedules the flush. */
  #append(text: string): void {
    if (!this.#batchOpen) {
      this.#batchOpen = true;
      process.nextTick(this.#flush);
    }
    this.#batch += text;
    this.#batchBytes += Buffer.byteLength(text, "utf8");
  }

  #flushBatch(): void {
    if (!this.#batchOpen) return;
    const text = this.#batch;
    const written = this.#batchWritten;
    const resolve = this.#resolveBatch;
    const reject = this.#rejectBatch;
    const failures = this.#batchFailures;
    this.#batch = "";
    this.#batchBytes = 0;
    this.#batchOpen = false;
    this.#batchWritten = undefined;
    this.#batchFailures = undefined;
    // The promise's resolvers belong to this batch only if one of its callers asked for it.
    const rejectWritten = written ? reject : undefined;
    if (this.#failure) {
      failBatch(this.#failure, rejectWritten, failures);
      return;
    }
    this.#stream.write(text, (error) => {
      if (!error) {
        if (written) resolve();
        return;
      }
      this.fail(this.#wrapError(error));
      failBatch(this.#failure, rejectWritten, failures);
    });
  }

  #written(
    error: Error | null | undefined,
    resolve: () => void,
    reject: (reason: unknown) => void,
  ): void {
    if (!error) {
      resolve();
      return;
    }
    // The callback can run before the stream's "error" event: the stream is broken either way.
    this.fail(this.#wrapError(error));
    reject(this.#failure);
  }

  #shift(): Item | undefined {
    while (this.#head < this.#items.length) {
      const item = this.#items[this.#head] as Item;
      this.#head++;
      if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
        this.#items = this.#items.slice(this.#head);
        this.#head = 0;
      }
      if (item.removed) continue;
      this.#remove(item);
      return item;
    }
    return undefined;
  }

  /**
   * One abort listener per distinct signal, however many queued writes share it (a caller may
   * pass one signal to many notifications), so listeners never pile up on a signal.
   */
  #watch(signal: AbortSignal, item: Item): void {
    let items = this.#watched.get(signal);
    if (!items) {
      const group = new Set<Item>();
      items = group;
      this.#watched.set(signal, group);
      signal.addEventListener(
        "abort",
        () => {
          this.#watched.delete(signal);
          for (const queued of group) {
            this.#remove(queued);
            if (queued.dropQuietly) queued.resolve();
            else queued.reject(signal.reason);
          }
        },
        { once: true },
      );
    }
    items.add(item);
  }

  /** Takes the item out of the byte count and out of its signal's watch (it stays in the array, marked). */
  #remove(item: Item): void {
    item.removed = true;
    this.#queuedBytes -= item.data.length;
    const signal = item.signal;
    if (!signal) return;
    const group = this.#watched.get(signal);
    group?.delete(item);
  }

  #drained(): Promise<void> {
    const stream = this.#stream;
    if (stream.destroyed || stream.writableEnded) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        stream.off("drain", done);
        stream.off("close", done);
        stream.off("error", done);
        resolve();
      };
      stream.on("drain", done);
      stream.on("close", done);
      stream.on("error", done);
    });
  }
}

function failBatch(
  error: unknown,
  reject: ((reason: unknown) => void) | undefined,
  failures: readonly ((error: unknown) => void)[] | undefined,
): void {
  reject?.(error);
  if (failures) for (const onFailure of failures) onFailure(error);
}
