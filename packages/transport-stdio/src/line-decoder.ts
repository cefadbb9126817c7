/** What the decoder knows about a frame it refused because it exceeded the cap. */
export interface OversizedFrame {
  /** Size of the whole frame in bytes (without its line terminator). */
  bytes: number;
  /** The frame's first bytes (up to 256), kept so the caller can tell whose response it was. */
  head: Buffer;
  /** The frame's last bytes (up to 64). */
  tail: Buffer;
}

export interface LineDecoderOptions {
  /** Largest frame accepted, in bytes, not counting `\n` (a trailing `\r` counts). */
  maxFrameBytes: number;
  /** Receives every non-blank line, decoded as UTF-8, without its `\n` or `\r\n`. */
  onLine(line: string): void;
  /** Receives every frame over the cap, once it ended (newline or end of input). */
  onOversized(frame: OversizedFrame): void;
  /**
   * Told once per frame over the cap, the moment it crosses the cap and before it ends, so a
   * server can answer without waiting for a newline that may never come.
   */
  onOverflow?(): void;
}

const HEAD_BYTES = 256;
const TAIL_BYTES = 64;
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const OPEN_BRACE = 0x7b;

/**
 * Splits a byte stream into newline-delimited frames. A frame inside one chunk is decoded in
 * place; the pieces of a frame spread over chunks are copied, kept as a list and joined once,
 * when its newline arrives, so such a frame costs linear time.
 * A frame that grows past `maxFrameBytes` is not buffered: its bytes are counted and dropped
 * until the next newline, then reported through `onOversized`, and decoding carries on with the
 * following frame. Memory is therefore bounded by the cap whatever the peer sends.
 */
export class LineDecoder {
  readonly #options: LineDecoderOptions;
  #chunks: Buffer[] = [];
  #pendingBytes = 0;
  #discarding = false;
  #discardedBytes = 0;
  #head: Buffer = Buffer.alloc(0);
  #tail: Buffer = Buffer.alloc(0);

  constructor(options: LineDecoderOptions) {
    this.#options = options;
  }

  /** Bytes held for the frame in progress (never more than `maxFrameBytes`). */
  get bufferedBytes(): number {
    return this.#pendingBytes;
  }

  /** Decodes `chunk`, which the caller may reuse once this returns: what is kept is copied. */
  push(chunk: Buffer): void {
    let start = 0;
    while (start <= chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      if (newline !== -1 && !this.#discarding && this.#pendingBytes === 0) {
        // The usual case: a whole frame inside this chunk is decoded in place, without a copy.
        if (end - start <= this.#options.maxFrameBytes) this.#emit(chunk, start, end);
        else {
          this.#append(chunk.subarray(start, end));
          this.#endFrame();
        }
        start = newline + 1;
        continue;
      }
      if (end > start) this.#append(chunk.subarray(start, end));
      if (newline === -1) return;
      this.#endFrame();
      start = newline + 1;
    }
  }

  /** Flushes a last frame that had no newline (end of input). */
  end(): void {
    if (this.#discarding || this.#pendingBytes > 0) this.#endFrame();
  }

  #append(piece: Buffer): void {
    if (this.#discarding) {
      this.#discardedBytes += piece.length;
      this.#tail = lastBytes(Buffer.concat([this.#tail, lastBytes(piece, TAIL_BYTES)]), TAIL_BYTES);
      return;
    }
    if (this.#pendingBytes + piece.length <= this.#options.maxFrameBytes) {
      this.#chunks.push(Buffer.from(piece));
      this.#pendingBytes += piece.length;
      return;
    }
    // Crossing the cap: keep only what identifies the frame, then drop the rest as it comes.
    const pieces = [...this.#chunks, piece];
    this.#head = firstBytesOf(pieces, HEAD_BYTES);
    this.#tail = lastBytesOf(pieces, TAIL_BYTES);
    this.#discardedBytes = this.#pendingBytes + piece.length;
    this.#discarding = true;
    this.#chunks = [];
    this.#pendingBytes = 0;
    this.#options.onOverflow?.();
  }

  #endFrame(): void {
    if (this.#discarding) {
      const frame: OversizedFrame = {
        bytes: this.#discardedBytes,
        head: this.#head,
        tail: this.#tail,
      };
      this.#discarding = false;
      this.#discardedBytes = 0;
      this.#head = Buffer.alloc(0);
      this.#tail = Buffer.alloc(0);
      this.#options.onOversized(frame);
      return;
    }
    const chunks = this.#chunks;
    this.#chunks = [];
    this.#pendingBytes = 0;
    if (chunks.length === 0) return;
    const frame = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
    this.#emit(frame, 0, frame.length);
  }

  /** Delivers bytes `start..end` of `buffer` as one line (a trailing CR dropped, blanks skipped). */
  #emit(buffer: Buffer, start: number, end: number): void {
    const last = buffer[end - 1] === CARRIAGE_RETURN ? end - 1 : end;
    if (last <= start) return;
    const line = buffer.toString("utf8", start, last);
    // A frame is an object (`{`): only something else can be a blank line.
    if (buffer[start] !== OPEN_BRACE && line.trim() === "") return;
    this.#options.onLine(line);
  }
}

function firstBytesOf(pieces: readonly Buffer[], count: number): Buffer {
  const taken: Buffer[] = [];
  let size = 0;
  for (const piece of pieces) {
    if (size >= count) break;
    const part = piece.subarray(0, count - size);
    taken.push(part);
    size += part.length;
  }
  return Buffer.concat(taken);
}

function lastBytesOf(pieces: readonly Buffer[], count: number): Buffer {
  const taken: Buffer[] = [];
  let size = 0;
  for (let index = pieces.length - 1; index >= 0 && size < count; index--) {
    const part = lastBytes(pieces[index] as Buffer, count - size);
    taken.unshift(part);
    size += part.length;
  }
  return Buffer.concat(taken);
}

function lastBytes(buffer: Buffer, count: number): Buffer {
  return buffer.length <= count ? buffer : buffer.subarray(buffer.length - count);
}
