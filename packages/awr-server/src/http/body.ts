import type { IncomingMessage } from "node:http";

export type BodyResult =
  | { status: "ok"; text: string }
  | { status: "too-large" }
  | { status: "aborted" };

/**
 * Reads a request body up to `limit` bytes. A declared Content-Length over the limit is
 * refused before reading; a body that grows past it stops being read at once.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  const declared = Number(req.headers["content-length"] ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.resolve({ status: "too-large" });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (result: BodyResult) => {
      if (done) return;
      done = true;
      resolve(result);
    };
    req.on("data", (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        req.resume();
        finish({ status: "too-large" });
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => finish({ status: "ok", text: Buffer.concat(chunks).toString("utf8") }));
    req.on("aborted", () => finish({ status: "aborted" }));
    req.on("error", () => finish({ status: "aborted" }));
    // Closed before its end (the connection cut, or the request refused unread): never settles
    // as "ok" later.
    req.on("close", () => finish({ status: "aborted" }));
  });
}
