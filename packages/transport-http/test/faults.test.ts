import {
  type JsonRpcRequest,
  LocalErrorCode,
  RequestTimeoutError,
  TransportError,
} from "@awr/jsonrpc-core";
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

async function open(
  config: Partial<HttpTransportConfig> & { type?: "http" } = {},
): Promise<HttpTransport> {
  const transport = faultTransport({ timeout: 5_000, closeTimeoutMs: 500, ...config });
  await transport.connect();
  return transport;
}

/** Makes POST initialize assign `session`, and answer everything else with `rest`. */
function withSession(session: string): void {
  server.on.POST = (req, res) => {
    if (req.body?.method === "initialize") {
      json(
        res,
        { jsonrpc: "2.0", id: req.body.id, result: { protocolVersion: "2025-11-25" } },
        { "mcp-session-id": session },
      );
      return;
    }
    if (req.body?.id === undefined) res.writeHead(202).end();
    else json(res, { jsonrpc: "2.0", id: req.body.id, result: { ok: true } });
  };
}

describe("HTTP failures become typed errors", () => {
  it("keeps the status, the body and the WWW-Authenticate hint of a 401", async () => {
    server.on.POST = (_req, res) => {
      res.writeHead(401, {
        "www-authenticate":
          'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"',
        "mcp-auth-server": "http://127.0.0.1/auth",
      });
      res.end("token required");
    };
    const transport = await open();
    const error = await transport.request("tools/list").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({
      code: LocalErrorCode.HttpStatus,
      details: {
        status: 401,
        body: "token required",
        wwwAuthenticate: expect.stringContaining("resource_metadata"),
      },
    });
    expect((error as Error).message).toMatch(
      /^HTTP 401: token required \(WWW-Authenticate: Bearer .*\) \(Mcp-Auth-Server: http:\/\/127\.0\.0\.1\/auth\)$/,
    );
  });

  it("truncates a long error body in the message but keeps it in details", async () => {
    const page = "x".repeat(5_000);
    server.on.POST = (_req, res) => {
      res.writeHead(500).end(page);
    };
    const transport = await open();
    const error = (await transport
      .request("tools/list")
      .catch((e: unknown) => e)) as TransportError;
    expect(error.message.length).toBeLessThan(1_100);
    expect(error.details.body).toBe(page);
  });

  it("turns a 404 on a request with a session id into SessionExpiredError and forgets the session", async () => {
    withSession("session-1");
    const transport = await open();
    await transport.request("initialize", {});
    expect(transport.sessionId).toBe("session-1");

    server.on.POST = (_req, res) => {
      res
        .writeHead(404, { "content-type": "application/json" })
        .end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}');
    };
    const error = await transport.request("tools/list").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionExpiredError);
    expect(error).toMatchObject({
      code: LocalErrorCode.SessionExpired,
      sessionId: "session-1",
      details: { status: 404 },
    });
    expect(transport.sessionId).toBeUndefined();

    // The transport stays usable: a new initialize starts a new session without the old id.
    withSession("session-2");
    await transport.request("initialize", {});
    const reinit = server.received.at(-1);
    expect(reinit?.headers["mcp-session-id"]).toBeUndefined();
    expect(transport.sessionId).toBe("session-2");
  });

  it("reports a 404 without a session id as a plain HTTP status error", async () => {
    server.on.POST = (_req, res) => {
      res.writeHead(404).end("no MCP here");
    };
    const transport = await open();
    const error = await transport.request("tools/list").catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(SessionExpiredError);
    expect(error).toMatchObject({
      code: LocalErrorCode.HttpStatus,
      message: "HTTP 404: no MCP here",
    });
  });

  it("names the problem when a JSON body is malformed", async () => {
    server.on.POST = (_req, res) => {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end('{"jsonrpc":"2.0","id":1,"result":');
    };
    const transport = await open();
    await expect(transport.request("tools/list")).rejects.toMatchObject({
      code: LocalErrorCode.ProtocolViolation,
      message: expect.stringMatching(/^malformed JSON body in the response to request ID 1: /),
    });
  });

  it("names the problem when a JSON body is JSON but not JSON-RPC", async () => {
    server.on.POST = (_req, res) => json(res, { hello: "world" });
    const transport = await open();
    await expect(transport.request("tools/list")).rejects.toMatchObject({
      code: LocalErrorCode.ProtocolViolation,
      message: expect.stringContaining("is not a JSON-RPC message"),
    });
  });

  it("refuses a body larger than maxBodyBytes, declared or streamed", async () => {
    const big = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { blob: "y".repeat(10_000) } });
    server.on.POST = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" }).end(big);
    };
    const transport = await open({ maxBodyBytes: 1_024 });
    await expect(transport.request("tools/list")).rejects.toMatchObject({
      code: LocalErrorCode.FrameTooLarge,
    });

    server.on.POST = (req, res) => {
      res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
      res.write(`{"jsonrpc":"2.0","id":${req.body?.id},"result":{"blob":"`);
      res.write("z".repeat(4_096));
      res.end('"}}');
    };
    await expect(transport.request("tools/list")).rejects.toMatchObject({
      code: LocalErrorCode.FrameTooLarge,
    });

    server.on.POST = (req, res) => {
      openSse(res);
      sse(res, { jsonrpc: "2.0", id: req.body?.id, result: { blob: "w".repeat(4_096) } });
      res.end();
    };
    await expect(transport.request("tools/list")).rejects.toMatchObject({
      code: LocalErrorCode.FrameTooLarge,
    });
  });

  it("times out a response that never comes, and tells the server it gave up", async () => {
    server.on.POST = (req, res) => {
      if (req.body?.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      openSse(res); // ...and never answers
    };
    const transport = await open();
    const error = await transport
      .request("tools/call", { name: "slow" }, { timeout: 150 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error).toMatchObject({ code: LocalErrorCode.RequestTimeout, method: "tools/call" });
    await eventually(() =>
      server.received.some((r) => r.body?.method === "notifications/cancelled"),
    );
  });

  it("bounds a notification the server never accepts by the timeout", async () => {
    server.on.POST = () => {
      // never answers
    };
    const transport = await open({ timeout: 150 });
    await expect(transport.notify("notifications/initialized")).rejects.toMatchObject({
      code: LocalErrorCode.RequestTimeout,
      message: "Notify timeout after 150ms: notifications/initialized",
    });
  });

  it("reports a refused connection as TRANSPORT_FAILED naming the URL", async () => {
    const transport = await open({ url: "http://127.0.0.1:1/mcp" });
    await expect(transport.request("tools/list")).rejects.toMatchObject({
      code: LocalErrorCode.TransportFailed,
      message: expect.stringContaining("POST http://127.0.0.1:1/mcp failed"),
    });
  });
});

describe("response streams", () => {
  it("fails a request whose stream ends without its response", async () => {
    server.on.POST = (_req, res) => {
      openSse(res);
      sse(res, {
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level: "info", data: "working" },
      });
      res.end();
    };
    const transport = await open();
    await expect(transport.request("tools/list")).rejects.toMatchObject({
      code: LocalErrorCode.TransportFailed,
      message: "No response received for request ID 1",
    });
  });

  it("delivers notifications and answers server requests interleaved before the response", async () => {
    const answers: unknown[] = [];
    server.on.POST = async (req, res) => {
      if (req.body?.method === undefined) {
        answers.push(req.body);
        res.writeHead(202).end();
        return;
      }
      openSse(res);
      sse(res, {
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level: "info", data: "hello" },
      });
      sse(res, { jsonrpc: "2.0", id: "srv-1", method: "roots/list" });
      await eventually(() => answers.length > 0);
      sse(res, { jsonrpc: "2.0", id: req.body.id, result: { done: true } });
      res.end();
    };
    const transport = await open();
    const notes: string[] = [];
    transport.onNotification = (n) => notes.push(n.method);
    transport.onRequest = (request: JsonRpcRequest) => ({
      roots: [{ uri: "file:///work", name: request.method }],
    });
    await expect(transport.request("tools/call", { name: "x" })).resolves.toEqual({ done: true });
    expect(notes).toEqual(["notifications/message"]);
    expect(answers).toEqual([
      {
        jsonrpc: "2.0",
        id: "srv-1",
        result: { roots: [{ uri: "file:///work", name: "roots/list" }] },
      },
    ]);
  });

  it("skips a malformed event, reports it, and still takes the response after it", async () => {
    server.on.POST = (req, res) => {
      openSse(res);
      sse(res, "{not json");
      sse(res, { jsonrpc: "2.0", id: req.body?.id, result: { fine: true } });
      res.end();
    };
    const transport = await open();
    const errors: Error[] = [];
    transport.onError = (error) => errors.push(error);
    await expect(transport.request("tools/list")).resolves.toEqual({ fine: true });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: LocalErrorCode.ProtocolViolation });
  });

  it("resumes a stream dropped mid-way through GET with Last-Event-ID", async () => {
    let postId: unknown;
    server.on.POST = (req, res) => {
      postId = req.body?.id;
      openSse(res);
      res.write("id: evt-1\nretry: 5\ndata: \n\n");
      sse(
        res,
        {
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: postId, progress: 1 },
        },
        "evt-2",
      );
      setTimeout(() => res.destroy(), 20);
    };
    server.on.GET = (req, res) => {
      openSse(res);
      sse(
        res,
        {
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: postId, progress: 2 },
        },
        "evt-3",
      );
      sse(
        res,
        { jsonrpc: "2.0", id: postId, result: { resumedFrom: req.headers["last-event-id"] } },
        "evt-4",
      );
      res.end();
    };
    const transport = await open();
    const progress: number[] = [];
    const result = await transport.request(
      "tools/call",
      { name: "long" },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(result).toEqual({ resumedFrom: "evt-2" });
    expect(progress).toEqual([1, 2]);
  });

  it("fails a dropped stream that carried no event ids, since it cannot be resumed", async () => {
    server.on.POST = (_req, res) => {
      openSse(res);
      sse(res, {
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level: "info", data: "x" },
      });
      setTimeout(() => res.destroy(), 20);
    };
    const transport = await open();
    await expect(transport.request("tools/list")).rejects.toMatchObject({
      code: LocalErrorCode.TransportFailed,
      message: expect.stringMatching(
        /^No response received for request ID 1: the response stream broke/,
      ),
    });
    expect(server.received.some((r) => r.method === "GET")).toBe(false);
  });

  it("fails a dropped stream when the server does not offer resuming it (GET 405)", async () => {
    server.on.POST = (_req, res) => {
      openSse(res);
      res.write("id: only-1\ndata: \n\n");
      setTimeout(() => res.destroy(), 20);
    };
    const transport = await open({ reconnect: { initialDelayMs: 1 } });
    await expect(transport.request("tools/list")).rejects.toMatchObject({
      message: expect.stringContaining("does not offer resuming it (GET 405)"),
    });
  });
});

describe("headers, tokens and close", () => {
  it("sends custom headers and a fresh bearer token on every request", async () => {
    let issued = 0;
    const transport = await open({
      headers: { "x-tenant": "acme", accept: "text/plain" },
      getToken: async () => `token-${++issued}`,
    });
    await transport.request("tools/list");
    await transport.notify("notifications/initialized");
    const [first, second] = server.received;
    expect(first?.headers).toMatchObject({
      "x-tenant": "acme",
      authorization: "Bearer token-1",
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
    });
    expect(second?.headers.authorization).toBe("Bearer token-2");
  });

  it("takes the token from an SDK-style authProvider", async () => {
    const transport = await open({
      authProvider: { tokens: () => ({ access_token: "oauth-abc" }) },
    });
    await transport.request("ping");
    expect(server.received[0]?.headers.authorization).toBe("Bearer oauth-abc");
  });

  it("tolerates a 405 on DELETE and a DELETE that never answers", async () => {
    withSession("s-405");
    const polite = await open();
    await polite.request("initialize", {});
    server.on.DELETE = (_req, res) => {
      res.writeHead(405).end();
    };
    await polite.close();

    withSession("s-hang");
    const stuck = await open({ closeTimeoutMs: 100 });
    await stuck.request("initialize", {});
    server.on.DELETE = () => {
      // never answers: close() must not wait for it
    };
    await stuck.close();
    const deletes = server.received
      .filter((r) => r.method === "DELETE")
      .map((r) => r.headers["mcp-session-id"]);
    expect(deletes).toEqual(["s-405", "s-hang"]);
  });

  it("rejects pending requests with Transport closed on close()", async () => {
    server.on.POST = (_req, res) => openSse(res);
    const transport = await open();
    const pending = transport.request("tools/call", { name: "forever" });
    await eventually(() => server.received.length > 0);
    await transport.close();
    await expect(pending).rejects.toMatchObject({
      code: LocalErrorCode.TransportClosed,
      message: "Transport closed",
    });
    await expect(transport.request("ping")).rejects.toMatchObject({
      code: LocalErrorCode.TransportClosed,
    });
  });
});
