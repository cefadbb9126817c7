import { readFile, writeFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeProject, tempDir, writeRegistry } from "./support/projects.js";
import { type RawAnswer, rawExchange } from "./support/raw-http.js";
import { killAll, type RunningService, startHttpService } from "./support/service-process.js";

// The shared service's HTTP edge, probed byte for byte over loopback against a real awr-mcp
// process serving a real SQLite ledger.

const TOKEN = "t".repeat(48);
const ORIGIN = "https://good.example";

let cleanup: () => Promise<void>;
let service: RunningService;
let host: string;

beforeAll(async () => {
  const temp = await tempDir("awr-service-edge-");
  cleanup = temp.cleanup;
  const shop = await makeProject(temp.dir, "shop");
  const registry = await writeRegistry(
    temp.dir,
    [{ key: "shop", ...shop }],
    [{ id: "eng", token: TOKEN, write: ["shop"] }],
  );
  // A top-level key must come before the first table.
  const text = await readFile(registry.file, "utf8");
  await writeFile(registry.file, `allowed_origins = ["${ORIGIN}"]\n${text}`);
  service = await startHttpService(registry.file, registry.env);
  host = new URL(service.url).host;
});
afterAll(async () => {
  await service?.stop();
  killAll();
  await cleanup?.();
});

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  },
});

type Header = readonly [string, string];
const json: Header[] = [
  ["Content-Type", "application/json"],
  ["Accept", "application/json, text/event-stream"],
];
const bearer = (token = TOKEN): Header => ["Authorization", `Bearer ${token}`];

function post(headers: readonly Header[], path?: string): Promise<RawAnswer> {
  return rawExchange(service.url, { path, headers: [...json, ...headers], body: initialize });
}

function errorMessage(answer: RawAnswer): string {
  return (JSON.parse(answer.body) as { error: { message: string } }).error.message;
}

describe("the shared service's HTTP edge", () => {
  it("serves one Host, one Authorization and one listed Origin", async () => {
    const answer = await post([["Host", host], bearer(), ["Origin", ORIGIN]]);
    expect(answer.status).toBe(200);
  });

  it("refuses a second Host header with 400, even when the first one is good", async () => {
    for (const second of [
      ["Host", "evil.example"],
      ["host", host],
      ["HOST", "evil.example:80"],
    ] as const) {
      const answer = await post([["Host", host], second, bearer()]);
      expect(answer.status, second.join(": ")).toBe(400);
      expect(errorMessage(answer)).toBe(
        "The request carries more than one Host header; send exactly one.",
      );
    }
  });

  it("refuses a second Authorization header with 400, even when the first one is right", async () => {
    for (const second of [
      ["Authorization", "Bearer wrong-token-wrong-token-wrong-token"],
      ["authorization", `Bearer ${TOKEN}`],
      ["AUTHORIZATION", ""],
    ] as const) {
      const answer = await post([["Host", host], bearer(), second]);
      expect(answer.status, second.join(": ")).toBe(400);
      expect(errorMessage(answer)).toBe(
        "The request carries more than one Authorization header; send exactly one.",
      );
      expect(answer.headers["www-authenticate"]).toBeUndefined();
    }
  });

  it("refuses a second Origin header with 400, even when both are listed", async () => {
    for (const second of [
      ["Origin", ORIGIN],
      ["origin", "https://evil.example"],
    ] as const) {
      const answer = await post([["Host", host], bearer(), ["Origin", ORIGIN], second]);
      expect(answer.status, second.join(": ")).toBe(400);
      expect(errorMessage(answer)).toBe(
        "The request carries more than one Origin header; send exactly one.",
      );
    }
  });

  it("matches Origin exactly: other case, a trailing slash, a port or no-break spaces are 403", async () => {
    for (const origin of [
      "HTTPS://GOOD.EXAMPLE",
      `${ORIGIN}/`,
      `${ORIGIN}:443`,
      "http://good.example",
      `\u00a0${ORIGIN}`,
      `${ORIGIN}\u00a0`,
      "null",
      "",
    ]) {
      const answer = await post([["Host", host], bearer(), ["Origin", origin]]);
      expect(answer.status, JSON.stringify(origin)).toBe(403);
      expect(errorMessage(answer)).toBe(
        `Origin ${origin} is not allowed; the operator lists browser origins in allowed_origins.`,
      );
    }
  });

  it("reads Origin after the HTTP parser has removed the optional spaces and tabs around it", async () => {
    // RFC 9110 section 5.5: spaces and tabs around a field value are not part of it, and Node's
    // parser drops them before any application code runs, so this is the listed origin itself.
    const answer = await post([["Host", host], bearer(), ["Origin", ` \t${ORIGIN}\t `]]);
    expect(answer.status).toBe(200);
  });

  it("matches Host without trimming: a no-break space around the name is 403", async () => {
    for (const value of [`\u00a0${host}`, `${host}\u00a0`, `localhost\u00a0`]) {
      const answer = await post([["Host", value], bearer()]);
      expect(answer.status, JSON.stringify(value)).toBe(403);
      expect(errorMessage(answer)).toBe(
        `Host ${value} is not allowed; the operator lists served names in allowed_hosts.`,
      );
    }
    const upper = await post([["Host", host.replace("127.0.0.1", "LOCALHOST")], bearer()]);
    expect(upper.status).toBe(200);
  });

  it("answers unknown paths with the same 404 with or without a token, asking for no login", async () => {
    const paths = [
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-authorization-server",
      "/",
      "/mcp/",
      "/register",
    ];
    const answers: RawAnswer[] = [];
    for (const path of paths) {
      for (const headers of [
        [["Host", host]],
        [["Host", host], bearer()],
        [["Host", host], bearer("x".repeat(48))],
        [
          ["Host", "evil.example"],
          ["Origin", "https://evil.example"],
        ],
        [["Host", host], ["Host", host], bearer(), bearer()],
      ] as Header[][]) {
        for (const method of ["GET", "POST"]) {
          const answer = await rawExchange(service.url, { method, path, headers });
          expect(answer.status, `${method} ${path}`).toBe(404);
          expect(answer.headers["www-authenticate"]).toBeUndefined();
          answers.push(answer);
        }
      }
    }
    const bodies = new Set(answers.map((a) => a.body));
    expect([...bodies]).toEqual([
      JSON.stringify({
        jsonrpc: "2.0",
        error: { code: -32000, message: "Not found: the MCP endpoint is /mcp." },
        id: null,
      }),
    ]);
  });

  it("still asks for the token at /mcp", async () => {
    const answer = await post([["Host", host]]);
    expect(answer.status).toBe(401);
    expect(answer.headers["www-authenticate"]).toMatch(/^Bearer/);
  });
});
