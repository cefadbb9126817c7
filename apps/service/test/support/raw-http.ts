import { connect } from "node:net";

export interface RawAnswer {
  status: number;
  /** Header names in lower case; repeated names keep the last value. */
  headers: Record<string, string>;
  body: string;
}

/** Joins a chunked transfer-encoded body (RFC 9112 section 7.1). */
function dechunk(raw: string): string {
  let body = "";
  let at = 0;
  for (;;) {
    const eol = raw.indexOf("\r\n", at);
    const size = Number.parseInt(raw.slice(at, eol), 16);
    if (!(size > 0)) return body;
    body += raw.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
}

/**
 * Sends one HTTP/1.1 request written byte for byte (header lines exactly as given, repeats and
 * odd spellings included, which node:http's client would normalise) and reads the answer until
 * the server closes the connection (`Connection: close` is sent). Header values are latin1, as
 * on the wire.
 */
export function rawExchange(
  url: string,
  request: {
    method?: string;
    path?: string;
    headers: readonly (readonly [string, string])[];
    body?: string;
  },
): Promise<RawAnswer> {
  const target = new URL(url);
  const body = Buffer.from(request.body ?? "", "utf8");
  const lines = [
    `${request.method ?? "POST"} ${request.path ?? target.pathname} HTTP/1.1`,
    ...request.headers.map(([name, value]) => `${name}: ${value}`),
    `Content-Length: ${body.length}`,
    "Connection: close",
    "",
    "",
  ];
  const head = Buffer.from(lines.join("\r\n"), "latin1");
  return new Promise((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname, () => {
      socket.end(Buffer.concat([head, body]));
    });
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("latin1");
      const split = text.indexOf("\r\n\r\n");
      const [statusLine = "", ...headerLines] = text.slice(0, split).split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(":");
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      const raw = split < 0 ? "" : text.slice(split + 4);
      const body = headers["transfer-encoding"] === "chunked" ? dechunk(raw) : raw;
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0),
        headers,
        body: Buffer.from(body, "latin1").toString("utf8"),
      });
    });
  });
}
