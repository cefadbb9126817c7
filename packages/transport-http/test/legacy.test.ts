import type { ServerResponse } from "node:http";
import { LocalErrorCode, type TransportCloseInfo } from "@awr/jsonrpc-core";
import type { SseTransport } from "@awr/transport-http";
import { afterEach, describe, expect, it } from "vitest";
import { openSse, sse } from "./fixtures/fault-server.js";
import { eventually } from "./fixtures/handshake.js";
import { useFaultServer } from "./fixtures/transport-suite.js";

const { server, transport: faultTransport } = await useFaultServer();
let stream: ServerResponse | undefined;

afterEach(() => {
  stream = undefined;
});

function legacy(timeout = 2_000): SseTransport {
  return faultTransport({ url: server.url("/sse"), type: "sse", timeout });
}

/** A legacy server: GET opens the stream and names the endpoint; POSTed requests are answered on it. */
function serveLegacy(endpoint = "/messages?sessionId=abc"): void {
  server.on.GET = (_req, res) => {
    openSse(res);
    stream = res;
    res.write(`event: endpoint\ndata: ${endpoint}\n\n`);
  };
  server.on.POST = (req, res) => {
    res.writeHead(202).end("Accepted");
    if (req.body?.id !== undefined && req.body.method !== undefined && stream) {
      stream.write(
        `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: req.body.id, result: { method: req.body.method } })}\n\n`,
      );
    }
  };
}

describe("legacy HTTP+SSE mode", () => {
  it("POSTs to the endpoint the stream named and reads answers from the stream", async () => {
    serveLegacy();
    const transport = legacy();
    await transport.connect();
    await expect(transport.request("tools/list")).resolves.toEqual({ method: "tools/list" });
    const post = server.received.find((r) => r.method === "POST");
    expect(post?.headers["content-type"]).toBe("application/json");
    expect(server.received.find((r) => r.method === "GET")?.headers.accept).toBe(
      "text/event-stream",
    );
  });

  it("delivers notifications that arrive on the stream", async () => {
    serveLegacy();
    const transport = legacy();
    const notes: string[] = [];
    transport.onNotification = (n) => notes.push(n.method);
    await transport.connect();
    if (stream) sse(stream, { jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    await eventually(() => notes.length === 1);
    expect(notes).toEqual(["notifications/tools/list_changed"]);
  });

  it("refuses an endpoint on another origin", async () => {
    serveLegacy("http://example.invalid:9/messages");
    await expect(legacy().connect()).rejects.toMatchObject({
      code: LocalErrorCode.ProtocolViolation,
      message: expect.stringContaining("on another origin"),
    });
  });

  it("gives up when no endpoint event arrives in time", async () => {
    server.on.GET = (_req, res) => openSse(res);
    await expect(legacy(150).connect()).rejects.toMatchObject({
      code: LocalErrorCode.TransportFailed,
      message: expect.stringContaining("sent no endpoint event within 150ms"),
    });
  });

  it("rejects connect() with the signal's reason when aborted while waiting", async () => {
    server.on.GET = (_req, res) => openSse(res);
    const controller = new AbortController();
    const reason = new Error("not today");
    const connecting = legacy().connect({ signal: controller.signal });
    await eventually(() => server.received.length > 0);
    controller.abort(reason);
    await expect(connecting).rejects.toBe(reason);
  });

  it("closes the transport when the server drops the stream, failing pending requests", async () => {
    serveLegacy();
    server.on.POST = (_req, res) => {
      res.writeHead(202).end();
    };
    const transport = legacy();
    const closes: TransportCloseInfo[] = [];
    transport.onClose = (info) => closes.push(info);
    await transport.connect();
    const pending = transport.request("tools/call", { name: "x" });
    await eventually(() => server.received.some((r) => r.method === "POST"));
    stream?.end();
    await expect(pending).rejects.toMatchObject({
      code: LocalErrorCode.TransportClosed,
      message: expect.stringContaining("closed the legacy SSE stream"),
    });
    expect(closes).toHaveLength(1);
    expect(closes[0]?.error).toBeDefined();
    expect(transport.connected).toBe(false);
  });

  it("reports an HTTP error on the stream request as an HTTP status error", async () => {
    server.on.GET = (_req, res) => {
      res
        .writeHead(403, { "www-authenticate": 'Bearer error="insufficient_scope"' })
        .end("forbidden");
    };
    await expect(legacy().connect()).rejects.toMatchObject({
      code: LocalErrorCode.HttpStatus,
      message: 'HTTP 403: forbidden (WWW-Authenticate: Bearer error="insufficient_scope")',
    });
  });
});
