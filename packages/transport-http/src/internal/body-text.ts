import { LocalErrorCode, TransportError } from "@awr/jsonrpc-core";
import type { HttpResponse } from "./http-exchange.js";

/** The most of an error response's body kept in `details.body`. */
export const ERROR_BODY_LIMIT = 16 * 1024;

function tooLarge(limit: number, declared?: number): TransportError {
  return new TransportError(
    LocalErrorCode.FrameTooLarge,
    `response body exceeds the ${limit}-byte limit (maxBodyBytes)`,
    { details: { limit, ...(declared === undefined ? {} : { contentLength: declared }) } },
  );
}

/** Stops a body read once it passed its limit (the bytes kept so far are its value). */
class LimitReached extends Error {}

/**
 * Reads a whole response body as UTF-8 text, refusing (FRAME_TOO_LARGE) as soon as it passes
 * `limit` bytes, so a hostile or broken server cannot make us buffer without bound. A declared
 * Content-Length past the limit is refused before reading anything.
 */
export async function readBodyText(response: HttpResponse, limit: number): Promise<string> {
  const declared = Number(response.header("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) {
    response.discard();
    throw tooLarge(limit, declared);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    await response.consume((chunk) => {
      total += chunk.byteLength;
      if (total > limit) throw new LimitReached();
      chunks.push(chunk);
    });
  } catch (error) {
    if (!(error instanceof LimitReached)) throw error;
    response.discard();
    throw tooLarge(limit);
  }
  return chunks.length === 1
    ? Buffer.from(chunks[0] as Uint8Array).toString("utf8")
    : Buffer.concat(chunks).toString("utf8");
}

/**
 * Reads at most `limit` bytes of an error response's body and drops the rest. Never throws: an
 * unreadable body is reported as empty, since the status already says what went wrong.
 */
export async function readErrorBody(
  response: HttpResponse,
  limit = ERROR_BODY_LIMIT,
): Promise<string> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    await response.consume((chunk) => {
      const room = limit - total;
      chunks.push(chunk.byteLength > room ? chunk.subarray(0, room) : chunk);
      total += Math.min(room, chunk.byteLength);
      if (total >= limit) throw new LimitReached();
    });
  } catch {
    response.discard();
  }
  return Buffer.concat(chunks).toString("utf8");
}
