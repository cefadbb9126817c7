import { isUtf8 } from "node:buffer";

/**
 * Text of source bytes, and the way back from text positions to byte positions, so an edit can
 * be made on the bytes and every byte outside it survives (invalid UTF-8, a BOM, CRLF).
 *
 * Valid UTF-8 decodes as usual. In invalid UTF-8 each byte that does not start a well-formed
 * sequence becomes one U+FFFD, so text positions still map to exact byte positions.
 */
export interface SourceText {
  text: string;
  /** Byte offset of the first byte that is not well-formed UTF-8, or null. */
  invalid_at: number | null;
  /** The byte offset of a text offset (0..text.length). */
  byteOffset(index: number): number;
}

/** Length of the well-formed UTF-8 sequence starting at `i`, or 0 when none starts there. */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const b0 = bytes[i] as number;
  if (b0 < 0x80) return 1;
  const cont = (k: number) => i + k < bytes.length && ((bytes[i + k] as number) & 0xc0) === 0x80;
  if (b0 >= 0xc2 && b0 <= 0xdf) return cont(1) ? 2 : 0;
  if (b0 >= 0xe0 && b0 <= 0xef) {
    const b1 = bytes[i + 1] ?? 0;
    if ((b0 === 0xe0 && b1 < 0xa0) || (b0 === 0xed && b1 > 0x9f)) return 0;
    return cont(1) && cont(2) ? 3 : 0;
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    const b1 = bytes[i + 1] ?? 0;
    if ((b0 === 0xf0 && b1 < 0x90) || (b0 === 0xf4 && b1 > 0x8f)) return 0;
    return cont(1) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

export function decodeSource(bytes: Uint8Array): SourceText {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isUtf8(buffer)) {
    const text = buffer.toString("utf8");
    return {
      text,
      invalid_at: null,
      byteOffset: (index) => Buffer.byteLength(text.slice(0, index), "utf8"),
    };
  }
  const parts: string[] = [];
  const offsets: number[] = [];
  let invalidAt: number | null = null;
  for (let i = 0; i < buffer.length; ) {
    const n = sequenceLength(buffer, i);
    const piece = n === 0 ? "\uFFFD" : buffer.toString("utf8", i, i + n);
    if (n === 0) invalidAt ??= i;
    for (let k = 0; k < piece.length; k++) offsets.push(i);
    parts.push(piece);
    i += n === 0 ? 1 : n;
  }
  offsets.push(buffer.length);
  return {
    text: parts.join(""),
    invalid_at: invalidAt,
    byteOffset: (index) => offsets[index] as number,
  };
}

/** 1-based line of a byte offset. */
export function lineOfByte(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < bytes.length; i++) if (bytes[i] === 0x0a) line++;
  return line;
}
