import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type HttpService,
  type LedgerBackend,
  loadRegistry,
  type Registry,
  startHttpService,
} from "@awr/awr-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { initFakeProject } from "./fake-backend.js";
import { twoProjectRegistry } from "./registry-text.js";

export const TOKENS = {
  engineering: "e".repeat(40),
  reviewer: "r".repeat(40),
  auditor: "u".repeat(40),
} as const;

export interface HttpFixture {
  dir: string;
  registry: Registry;
  service: HttpService;
  connect(token: string): Promise<Client>;
  /**
   * A raw request to the service's URL (see rawRequest) with the MCP headers for `token` (no
   * Authorization without one) and `headers` over them.
   */
  send(options: {
    token?: string;
    headers?: Record<string, string>;
    method?: string;
    path?: string;
    body?: string | Buffer;
  }): Promise<RawResponse>;
  close(): Promise<void>;
}

/**
 * A temp directory with projects billing and support (fake identities), a registry of the given
 * version, and a running service on an ephemeral loopback port.
 */
export async function startFixture(
  backend: LedgerBackend,
  options: {
    version?: 1 | 2;
    maxConcurrentCalls?: number;
    extra?: string;
    log?: (line: string) => void;
  } = {},
): Promise<HttpFixture> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), "awr-http-")));
  await initFakeProject(join(dir, "billing"), "01BILLING");
  await initFakeProject(join(dir, "support"), "01SUPPORT");
  const version = options.version ?? 1;
  const file = join(dir, "service.toml");
  await writeFile(
    file,
    `${twoProjectRegistry({
      version,
      head: 'allowed_origins = ["https://good.example"]',
      billing: join(dir, "billing"),
      support: join(dir, "support"),
      engineeringTokenEnv: "T_ENG",
      reviewerTokenEnv: "T_REV",
    })}${options.extra ?? ""}
`,
    { mode: 0o600 },
  );
  const registry = await loadRegistry(
    file,
    { T_ENG: TOKENS.engineering, T_REV: TOKENS.reviewer, T_AUD: TOKENS.auditor },
    { readIdentity: backend.readIdentity },
  );
  const service = await startHttpService({
    registry,
    backend,
    host: "127.0.0.1",
    port: 0,
    maxConcurrentCalls: options.maxConcurrentCalls,
    log: options.log,
  });
  const clients: Client[] = [];
  return {
    dir,
    registry,
    service,
    async connect(token) {
      const client = new Client({ name: "test", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(service.url), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      clients.push(client);
      return client;
    },
    send({ token, headers, ...rest }) {
      return rawRequest(service.url, { ...rest, headers: { ...mcpHeaders(token), ...headers } });
    },
    async close() {
      await Promise.allSettled(clients.map((client) => client.close()));
      await service.close({ graceMs: 2000 });
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw HTTP request (node:http lets tests set Host and Origin freely). */
export function rawRequest(
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    path?: string;
  },
): Promise<RawResponse> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: options.path ?? target.pathname,
        method: options.method ?? "POST",
        headers: options.headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

export const initializeBody = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  },
});

export const mcpHeaders = (token?: string): Record<string, string> => ({
  "Content-Type": "application/json",
  Accept: "application/json, text/event-stream",
  ...(token ? { Authorization: `Bearer ${token}` } : {}),
});
