import { LocalErrorCode } from "@awr/jsonrpc-core";
import {
  type HttpTransport,
  type HttpTransportConfig,
  SessionExpiredError,
} from "@awr/transport-http";
import { describe, expect, it } from "vitest";
import { json, openSse, sse } from "./fixtures/fault-server.js";
import { eventually } from "./fixtures/handshake.js";
import { useFaultServer } from "./fixtures/transport-suite.js";

const { server, transport: faultTransport } = await useFaultServer();

/** A session-assigning server; the GET handler is each test's. */
async function listening(
  config: Partial<HttpTransportConfig> & { type?: "http" } = {},
): Promise<{ transport: HttpTransport; notes: string[]; errors: Error[] }> {
  server.on.POST = (req, res) => {
    if (req.body?.id === undefined) res.writeHead(202).end();
    else json(res, { jsonrpc: "2.0", id: req.body.id, result: {} }, { "mcp-session-id": "sess" });
  };
  const transport = faultTransport({
    listen: true,
    closeTimeoutMs: 200,
    reconnect: { initialDelayMs: 5, maxDelayMs: 20, maxRetries: 3 },
    ...config,
  });
  const notes: string[] = [];
  const errors: Error[] = [];
  transport.onNotification = (n) =>
    notes.push(String((n.params as { tag?: string } | undefined)?.tag ?? n.method));
  transport.onError = (error) => errors.push(error);
  await transport.connect();
  await transport.request("initialize", {});
  return { transport, notes, errors };
}

const gets = () => server.received.filter((r) => r.method === "GET");
const note = (tag: string) => ({
  jsonrpc: "2.0",
  method: "notifications/message",
  params: { level: "info", data: tag, tag },
});

describe("the GET listener", () => {
  it("waits for notifications/initialized, then opens with the session id", async () => {
    server.on.GET = (_req, res) => {
      openSse(res);
      sse(res, note("hello"), "1");
    };
    const { transport, notes } = await listening();
    expect(gets()).toHaveLength(0);
    await transport.notify("notifications/initialized");
    await eventually(() => notes.includes("hello"));
    expect(gets()[0]?.headers).toMatchObject({
      accept: "text/event-stream",
      "mcp-session-id": "sess",
    });
    expect(transport.listenerState).toBe("open");
  });

  it("stays closed when listen is not set", async () => {
    const { transport } = await listening({ listen: false });
    await transport.notify("notifications/initialized");
    await transport.request("ping");
    expect(gets()).toHaveLength(0);
    expect(transport.listenerState).toBe("idle");
  });

  it("reconnects after a drop with Last-Event-ID and keeps delivering", async () => {
    server.on.GET = (req, res) => {
      openSse(res);
      if (req.headers["last-event-id"] === undefined) {
        sse(res, note("first"), "a-1");
        setTimeout(() => res.destroy(), 10);
      } else {
        sse(res, note(`after ${req.headers["last-event-id"]}`), "a-2");
      }
    };
    const { transport, notes } = await listening();
    await transport.notify("notifications/initialized");
    await eventually(() => notes.length === 2);
    expect(notes).toEqual(["first", "after a-1"]);
    expect(gets()).toHaveLength(2);
  });

  it("honours the server's retry field over its own backoff", async () => {
    server.on.GET = (_req, res) => {
      openSse(res);
      res.write("retry: 5\n\n");
      sse(res, note(`connection ${gets().length}`), `r-${gets().length}`);
      res.end();
    };
    // Without the server's retry, the first reconnect would wait about a minute.
    const { transport, notes } = await listening({
      reconnect: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
    });
    await transport.notify("notifications/initialized");
    await eventually(() => notes.length >= 3);
    expect(notes.slice(0, 3)).toEqual(["connection 1", "connection 2", "connection 3"]);
  });

  it("replaces a stream that went idle (watchdog)", async () => {
    server.on.GET = (_req, res) => {
      openSse(res); // then silence
    };
    const { transport, errors } = await listening({ idleTimeoutMs: 50 });
    await transport.notify("notifications/initialized");
    await eventually(() => gets().length >= 3);
    // Idle reconnects are routine, not errors.
    expect(errors).toEqual([]);
  });

  it("disables itself quietly on 405", async () => {
    server.on.GET = (_req, res) => {
      res.writeHead(405).end();
    };
    const { transport, errors } = await listening();
    await transport.notify("notifications/initialized");
    await eventually(() => transport.listenerState === "disabled");
    expect(errors).toEqual([]);
    expect(gets()).toHaveLength(1);
  });

  it("gives up after maxRetries consecutive failures and says so", async () => {
    server.on.GET = (_req, res) => {
      res.writeHead(503).end("overloaded");
    };
    const { transport, errors } = await listening();
    await transport.notify("notifications/initialized");
    await eventually(() => transport.listenerState === "stopped");
    expect(gets()).toHaveLength(4);
    expect(
      errors.slice(0, 4).every((e) => (e as { code?: string }).code === LocalErrorCode.HttpStatus),
    ).toBe(true);
    expect(errors.at(-1)?.message).toBe("GET listener gave up after 4 consecutive failures");
  });

  it("stops on an expired session and reports SessionExpiredError", async () => {
    server.on.GET = (_req, res) => {
      res.writeHead(404).end("unknown session");
    };
    const { transport, errors } = await listening();
    await transport.notify("notifications/initialized");
    await eventually(() => transport.listenerState === "stopped");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(SessionExpiredError);
    expect(transport.sessionId).toBeUndefined();
  });

  it("answers a server request that arrives on the GET stream", async () => {
    server.on.GET = (_req, res) => {
      openSse(res);
      sse(res, { jsonrpc: "2.0", id: 7, method: "ping" }, "p-1");
    };
    const { transport } = await listening();
    transport.onRequest = () => ({});
    await transport.notify("notifications/initialized");
    await eventually(() => server.received.some((r) => r.method === "POST" && r.body?.id === 7));
    const answer = server.received.find((r) => r.body?.id === 7);
    expect(answer?.body).toEqual({ jsonrpc: "2.0", id: 7, result: {} });
    expect(answer?.headers["mcp-session-id"]).toBe("sess");
  });

  it("closes the stream on close()", async () => {
    let closed = false;
    server.on.GET = (req, res) => {
      openSse(res);
      res.on("close", () => {
        closed = true;
      });
      void req;
    };
    const { transport } = await listening();
    await transport.notify("notifications/initialized");
    await eventually(() => transport.listenerState === "open");
    await transport.close();
    expect(transport.listenerState).toBe("stopped");
    await eventually(() => closed);
  });
});
