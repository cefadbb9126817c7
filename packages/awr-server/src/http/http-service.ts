import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { InvalidMessage } from "@awr/jsonrpc-core";
import { CallLimiter } from "../internal/call-limiter.js";
import { errorResponse, invalidMessage, readJson } from "../internal/json-rpc-message.js";
import type { LedgerBackend } from "../ledger-backend.js";
import { duplicateProjectProblems, RegistryError } from "../registry/check-registry.js";
import type { Registry } from "../registry/registry-types.js";
import { serveHttpExchange } from "../sdk/mcp-sdk.js";
import { createAwrServer } from "../server/create-awr-server.js";
import { readBody } from "./body.js";
import { Connections } from "./connections.js";
import { httpToolHost } from "./http-tool-host.js";
import { ProjectDirectory } from "./project-directory.js";
import { guardRequest } from "./request-guard.js";

/** Request bodies larger than this are refused with 413. */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;
/** The 503 a stopping service answers: the request was not served and may be sent again. */
const SHUTTING_DOWN = "The service is shutting down; retry on another instance.";
/** Tool calls allowed in flight across the whole service. */
export const DEFAULT_MAX_CONCURRENT_CALLS = 64;

export interface HttpServiceOptions {
  readonly registry: Registry;
  readonly backend: LedgerBackend;
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly maxConcurrentCalls?: number;
  /** Diagnostics (stderr in awr-mcp). */
  readonly log?: (line: string) => void;
  readonly signal?: AbortSignal;
}

export interface HttpService {
  /** `http://host:port/mcp` */
  readonly url: string;
  readonly port: number;
  /**
   * Graceful stop: refuses new requests (503), lets in-flight calls finish, closes every
   * connection and the ledgers. Idempotent. After `graceMs` (default 10 s) connections are cut.
   * A request whose body has not all arrived is refused (503) and idle connections are closed at
   * once: only work in progress holds the stop.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/**
 * A JSON-RPC error for a body that is not one valid message (400): -32700 for text that is not
 * JSON, -32600 for JSON that is not a JSON-RPC 2.0 message; the id is null unless the body has a
 * usable one.
 */
function sendRpcError(res: ServerResponse, invalid: InvalidMessage): void {
  if (res.headersSent) return;
  res
    .writeHead(400, { "Content-Type": "application/json" })
    .end(JSON.stringify(errorResponse(invalid)));
}

function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
) {
  if (res.headersSent) return;
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null });
  res.writeHead(status, { "Content-Type": "application/json", ...headers }).end(body);
}

/**
 * Starts the shared Streamable HTTP service at `/mcp`. It is stateless: each POST gets a fresh
 * MCP server and transport (no MCP session ids), and AWR sessions live in the ledgers, so any
 * number of processes can serve the same PostgreSQL-backed projects. What does not depend on the
 * request is built once: the tool catalog (see createAwrServer) and the projects' open ledgers. GET (standalone SSE) and
 * DELETE are 405: there is no server-initiated stream to hold open.
 */
export async function startHttpService(options: HttpServiceOptions): Promise<HttpService> {
  const { registry, log } = options;
  // loadRegistry refuses these already; a registry built in code must not serve one project
  // (one key, root or project_id) twice either.
  const duplicated = duplicateProjectProblems(registry.projects);
  if (duplicated.length > 0) throw new RegistryError(registry.file, duplicated);
  const limiter = new CallLimiter(options.maxConcurrentCalls ?? DEFAULT_MAX_CONCURRENT_CALLS);
  const projects = await ProjectDirectory.open(registry.projects, options.backend, {
    signal: options.signal,
    log,
  });
  let draining = false;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (draining) {
      return sendError(res, 503, SHUTTING_DOWN, { Connection: "close" });
    }
    // Unknown paths are 404 for everyone, before any credential is looked at: the answer is the
    // same with or without a token (so it says nothing about one), and a host probing for OAuth
    // metadata (/.well-known/...) learns that there is none instead of being asked to log in.
    // The common case needs no URL parsing; anything else (a query, odd forms) is parsed.
    const path = req.url === "/mcp" ? "/mcp" : new URL(req.url ?? "/", "http://localhost").pathname;
    if (path !== "/mcp") return sendError(res, 404, "Not found: the MCP endpoint is /mcp.");
    const guard = guardRequest(req, registry);
    if (!guard.ok) return sendError(res, guard.status, guard.message, guard.headers);
    if (req.method !== "POST") {
      return sendError(res, 405, "Method not allowed: this stateless endpoint accepts POST only.", {
        Allow: "POST",
      });
    }
    const body = await readBody(req, MAX_BODY_BYTES);
    if (body.status === "too-large") {
      return sendError(res, 413, `Request body over ${MAX_BODY_BYTES} bytes (2 MiB).`, {
        Connection: "close",
      });
    }
    // Aborted, or refused by a stop that began while the body was still arriving.
    if (body.status === "aborted" || res.headersSent) return;
    const read = readJson(body.text, "body");
    if (read.kind === "invalid") return sendRpcError(res, read);
    const invalid = invalidMessage(read.value, "body");
    if (invalid !== undefined) return sendRpcError(res, invalid);
    const server = createAwrServer(
      httpToolHost({ registry, client: guard.client, projects, limiter, log }),
    );
    await serveHttpExchange(server, req, res, read.value);
  }

  const http = createServer((req, res) => {
    // An exchange ends when its response closes: sent, or cut because the client went away. Not
    // when handle() settles: for a client that disconnected during a call, the SDK's transport
    // never settles handleRequest (the aborted call's answer is dropped), and counting it would
    // hold every graceful close for its whole grace period. The call itself, still running in
    // the ledger, is what close() waits for through the limiter.
    connections.track(req, res);
    handle(req, res).catch((error: unknown) => {
      log?.(`request failed: ${(error as Error)?.stack ?? String(error)}`);
      sendError(res, 500, "Internal error.");
    });
  });
  http.requestTimeout = 120_000;
  const connections = new Connections(http);

  try {
    await new Promise<void>((resolve, reject) => {
      http.once("error", reject);
      http.listen(options.port, options.host, () => {
        http.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    // Nothing will ever serve them (the port is taken, the address is not this machine's...):
    // the ledgers opened above are closed before the listen error (its `code` kept) is thrown.
    await projects.close();
    throw error;
  }
  const port = (http.address() as AddressInfo).port;
  const hostForUrl = options.host.includes(":") ? `[${options.host}]` : options.host;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${hostForUrl}:${port}/mcp`,
    port,
    close({ graceMs = 10_000 } = {}) {
      closing ??= (async () => {
        draining = true;
        const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
        // Only work in progress may hold the stop: a body still arriving gets its 503 now, and
        // idle, keep-alive and slowloris connections are closed now.
        connections.shed((res) =>
          sendError(res, 503, SHUTTING_DOWN, {
            Connection: "close",
          }),
        );
        let timer: NodeJS.Timeout | undefined;
        const grace = new Promise<void>((resolve) => {
          timer = setTimeout(resolve, graceMs);
          timer.unref();
        });
        await Promise.race([Promise.all([connections.idle(), limiter.idle()]), grace]);
        clearTimeout(timer);
        http.closeAllConnections();
        await stopped;
        await projects.close();
      })();
      return closing;
    },
  };
}
