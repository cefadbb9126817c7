/**
 * Keeps the last `capacity` bytes written to it, in a fixed allocation: older bytes are
 * overwritten, so a chatty server costs the same memory as a quiet one.
 */
export class ByteRingBuffer {
  readonly #buffer: Buffer;
  #start = 0;
  #length = 0;
  #truncated = false;

  constructor(capacity: number) {
    this.#buffer = Buffer.alloc(capacity);
  }

  push(chunk: Buffer): void {
    const capacity = this.#buffer.length;
    if (capacity === 0) {
      this.#truncated ||= chunk.length > 0;
      return;
    }
    let data = chunk;
    if (data.length >= capacity) {
      this.#truncated ||= data.length > capacity || this.#length > 0;
      data.copy(this.#buffer, 0, data.length - capacity);
      this.#start = 0;
      this.#length = capacity;
      return;
    }
    while (data.length > 0) {
      const writeAt = (this.#start + this.#length) % capacity;
      const room = Math.min(data.length, capacity - writeAt);
      data.copy(this.#buffer, writeAt, 0, room);
      data = data.subarray(room);
      const overflow = this.#length + room - capacity;
      if (overflow > 0) {
        this.#truncated = true;
        this.#start = (this.#start + overflow) % capacity;
        this.#length = capacity;
      } else {
        this.#length += room;
      }
    }
  }

  /** The kept bytes as UTF-8; when older bytes were dropped, a character cut in half is skipped. */
  toString(): string {
    const capacity = this.#buffer.length;
    const end = this.#start + this.#length;
    let bytes =
      end <= capacity
        ? this.#buffer.subarray(this.#start, end)
        : Buffer.concat([
            this.#buffer.subarray(this.#start),
            this.#buffer.subarray(0, end - capacity),
          ]);
    if (this.#truncated) {
      let skip = 0;
      while (skip < bytes.length && skip < 3 && ((bytes[skip] as number) & 0xc0) === 0x80) skip++;
      bytes = bytes.subarray(skip);
    }
    return bytes.toString("utf8");
  }
}
