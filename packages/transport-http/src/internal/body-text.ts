import { LocalErrorCode, TransportError } from "@awr/jsonrpc-core";

/** The most of an error response's body kept in `details.body`. */
export const ERROR_BODY_LIMIT = 16 * 1024;

function tooLarge(limit: number, declared?: number): TransportError {
  return new TransportError(
    LocalErrorCode.FrameTooLarge,
    `response body exceeds the ${limit}-byte limit (maxBodyBytes)`,
    { details: { limit, ...(declared === undefined ? {} : { contentLength: declared }) } },
  );
}

/**
 * Reads a whole response body as UTF-8 text, refusing (FRAME_TOO_LARGE) as soon as it passes
 * `limit` bytes, so a hostile or broken server cannot make us buffer without bound. A declared
 * Content-Length past the limit is refused before reading anything.
 */
export async function readBodyText(response: Response, limit: number): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge(limit, declared);
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let total = 0;
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

/**
 * Reads at most `limit` bytes of an error response's body and drops the rest. Never throws: an
 * unreadable body is reported as empty, since the status already says what went wrong.
 */
export async function readErrorBody(response: Response, limit = ERROR_BODY_LIMIT): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let total = 0;
  try {
    while (total < limit) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      const room = limit - total;
      const slice = value.byteLength > room ? value.subarray(0, room) : value;
      total += slice.byteLength;
      text += decoder.decode(slice, { stream: true });
    }
    await reader.cancel().catch(() => {});
    return text + decoder.decode();
  } catch {
    return text;
  }
}
