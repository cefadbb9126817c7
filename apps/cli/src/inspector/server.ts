import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { LIMITS } from "@awr/awr-ledger/catalog";
import { allowedAddresses, checkBoundary, METHODS, setSecurityHeaders } from "./boundary.js";
import { type LiveBackend, LiveFeed } from "./live.js";
import { apiRoutes, type RouteSettings } from "./routes.js";
import { Semaphore } from "./semaphore.js";
import { sendStatic, staticFile } from "./static-files.js";

/**
 * The inspector's HTTP server on 127.0.0.1: the boundary first (boundary.ts), then /api/live,
 * the JSON API (routes.ts) under a small semaphore, and the page's static files. It never
 * writes a file; the only write it can make to the ledger is the reindex that --allow-reindex
 * permits.
 */

const BOUNDS = LIMITS.inspector;

export interface InspectorServerOptions extends RouteSettings {
  backend: LiveBackend;
  webDirectory: string;
  /** API requests worked on at once; LIMITS.inspector.concurrent unless a test narrows it. */
  concurrent?: number;
}

export interface RunningInspector {
  port: number;
  url: string;
  /** Ends the live streams, stops listening and drops connections still open after a bound. */
  close(): Promise<void>;
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: Record<string, unknown>,
  head = false,
): void {
  let text = JSON.stringify(body);
  if (Buffer.byteLength(text) > BOUNDS.answerBytes) {
    status = 200;
    text = JSON.stringify({
      ok: false,
      ...(typeof body["command"] === "string" ? { command: body["command"] } : {}),
      error: {
        code: "OutputTooLarge",
        message: `the answer exceeds ${BOUNDS.answerBytes} bytes; run the command in a terminal`,
      },
    });
  }
  res.writeHead(status, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(text),
  });
  res.end(head ? undefined : text);
}

function refusal(code: string, message: string): Record<string, unknown> {
  return { ok: false, error: { code, message } };
}

/** The request body as JSON, bounded; `tooLarge` once it passes LIMITS.inspector.requestBodyBytes. */
function readBody(
  req: IncomingMessage,
): Promise<{ tooLarge: true } | { body: unknown } | { malformed: true }> {
  return new Promise((resolve) => {
    const declared = Number(req.headers["content-length"]);
    if (Number.isFinite(declared) && declared > BOUNDS.requestBodyBytes) {
      req.resume();
      resolve({ tooLarge: true });
      return;
    }
    const chunks: Buffer[] = [];
    let bytes = 0;
    let done = false;
    req.on("data", (chunk: Buffer) => {
      if (done) return;
      bytes += chunk.length;
      if (bytes > BOUNDS.requestBodyBytes) {
        done = true;
        // The rest is read and dropped, so the 413 reaches the client.
        resolve({ tooLarge: true });
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (done) return;
      done = true;
      const text = Buffer.concat(chunks).toString("utf8");
      if (text.trim() === "") {
        resolve({ body: {} });
        return;
      }
      try {
        resolve({ body: JSON.parse(text) });
      } catch {
        resolve({ malformed: true });
      }
    });
    req.on("error", () => {
      if (!done) {
        done = true;
        resolve({ malformed: true });
      }
    });
  });
}

export async function startInspectorServer(
  options: InspectorServerOptions,
  port: number,
): Promise<RunningInspector> {
  const routes = apiRoutes(options);
  const live = new LiveFeed(options.backend);
  const admission = new Semaphore(options.concurrent ?? BOUNDS.concurrent);
  let allowed = allowedAddresses(port);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    setSecurityHeaders(res);
    const method = req.method ?? "";
    if (!(METHODS as readonly string[]).includes(method)) {
      res.setHeader("Allow", METHODS.join(", "));
      sendJson(res, 405, refusal("MethodNotAllowed", `${method} is not answered here`));
      return;
    }
    const denied = checkBoundary(req, allowed);
    if (denied !== undefined) {
      sendJson(res, denied.status, refusal(denied.code, denied.message));
      return;
    }
    const rawTarget = req.url ?? "/";
    let url: URL;
    try {
      if (!rawTarget.startsWith("/")) throw new Error("not a path");
      // Joined, not resolved: `//x` stays a path instead of naming a host.
      url = new URL(`http://127.0.0.1${rawTarget}`);
    } catch {
      sendJson(res, 400, refusal("BadRequestTarget", "the request target is not a path"));
      return;
    }
    const head = method === "HEAD";
    if (!url.pathname.startsWith("/api/")) {
      if (method === "POST") {
        res.setHeader("Allow", "GET, HEAD");
        sendJson(res, 405, refusal("MethodNotAllowed", "static files are only read"));
        return;
      }
      const rawPath = rawTarget.split(/[?#]/, 1)[0] as string;
      sendStatic(res, await staticFile(options.webDirectory, rawPath), head);
      return;
    }
    if (url.pathname === "/api/live" && method === "GET") {
      if (!live.open(res)) {
        res.setHeader("Retry-After", String(BOUNDS.retryAfterSeconds));
        sendJson(res, 503, refusal("BridgeBusy", "too many live streams are open"));
      }
      return;
    }
    // HEAD asks what GET would answer.
    const route = routes.get(`${head ? "GET" : method} ${url.pathname}`);
    if (route === undefined) {
      const known = [...routes.keys()].some((k) => k.endsWith(` ${url.pathname}`));
      if (known || url.pathname === "/api/live") {
        sendJson(res, 405, refusal("MethodNotAllowed", `${method} ${url.pathname}`));
      } else {
        sendJson(res, 404, refusal("NoRoute", `${method} ${url.pathname}`));
      }
      return;
    }
    const release = admission.tryAcquire();
    if (release === undefined) {
      req.resume();
      res.setHeader("Retry-After", String(BOUNDS.retryAfterSeconds));
      sendJson(
        res,
        503,
        refusal("BridgeBusy", "the inspector is answering as many requests as it allows; retry"),
      );
      return;
    }
    try {
      let body: Record<string, unknown> | undefined;
      if (method === "POST") {
        const read = await readBody(req);
        if ("tooLarge" in read) {
          res.setHeader("Connection", "close");
          sendJson(
            res,
            413,
            refusal("BodyTooLarge", `request bodies are at most ${BOUNDS.requestBodyBytes} bytes`),
          );
          return;
        }
        if (
          "malformed" in read ||
          typeof read.body !== "object" ||
          read.body === null ||
          Array.isArray(read.body)
        ) {
          sendJson(res, 400, refusal("BadRequest", "the body must be a JSON object"));
          return;
        }
        body = read.body as Record<string, unknown>;
      }
      const answer = await route(url, body);
      sendJson(res, answer.status, answer.body, head);
    } finally {
      release();
    }
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      sendJson(res, 500, refusal("Internal", String((error as Error)?.message ?? error)));
    });
  });
  // Slow or idle clients do not hold the server: a request has this long to arrive whole.
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  allowed = allowedAddresses(bound);

  let closing: Promise<void> | undefined;
  return {
    port: bound,
    url: `http://127.0.0.1:${bound}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        live.close();
        const force = setTimeout(() => server.closeAllConnections(), BOUNDS.stopMs);
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
