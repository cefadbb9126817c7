import { LocalErrorCode, RequestTimeoutError, TransportError } from "@awr/jsonrpc-core";
import { callMCP, initializeMCP, parseSSE, SessionExpiredError } from "@awr/transport-http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type EverythingServer, startEverything } from "./fixtures/everything-server.js";
import { type FaultServer, json, openSse, sse, startFaultServer } from "./fixtures/fault-server.js";
import { type SdkServer, startSdkServer } from "./fixtures/sdk-server.js";

describe("parseSSE", () => {
  it("parses every data message of an SSE body, skipping empty priming events", () => {
    const body =
      'id: 1\ndata: \n\nevent: message\ndata: {"a":1}\n\ndata: {"b":\ndata: 2}\n\nevent: ping\ndata: x\n\ndata: {"c":3}';
    expect(parseSSE(body)).toEqual([{ a: 1 }, { b: 2 }, { c: 3 }]);
  });

  it("tolerates a plain JSON body, object or array", () => {
    expect(parseSSE('{"jsonrpc":"2.0","id":1,"result":{}}')).toEqual([
      { jsonrpc: "2.0", id: 1, result: {} },
    ]);
    expect(parseSSE(" [1, 2]")).toEqual([1, 2]);
    expect(parseSSE("")).toEqual([]);
  });

  it("names the event that is not JSON", () => {
    expect(() => parseSSE('data: {"ok":true}\n\ndata: {oops\n\n')).toThrow(
      expect.objectContaining({
        code: LocalErrorCode.ProtocolViolation,
        message: expect.stringMatching(/^SSE event 2 is not JSON/),
      }),
    );
    expect(() => parseSSE("{not json")).toThrow(TransportError);
    expect(() => parseSSE(42 as unknown as string)).toThrow(TypeError);
  });
});

describe("callMCP", () => {
  let sdk: SdkServer;
  let faults: FaultServer;
  beforeAll(async () => {
    [sdk, faults] = await Promise.all([
      startSdkServer({ stateful: false, json: false }),
      startFaultServer(),
    ]);
  });
  afterEach(() => faults.reset());
  afterAll(async () => {
    await Promise.all([sdk.close(), faults.close()]);
  });

  it("returns the raw envelope from an SSE answer of a real server", async () => {
    const envelope = await callMCP(sdk.url(), "tools/list", {}, { protocolVersion: "2025-11-25" });
    expect(envelope).toMatchObject({ jsonrpc: "2.0", id: 1, result: { tools: expect.any(Array) } });
  });

  it("returns error envelopes instead of throwing them", async () => {
    const envelope = await callMCP(sdk.url(), "no/such-method", undefined, { id: "x-1" });
    expect(envelope).toMatchObject({ id: "x-1", error: { code: -32601 } });
  });

  it("reads a JSON answer and sends the given headers and session", async () => {
    faults.on.POST = (req, res) =>
      json(res, { jsonrpc: "2.0", id: req.body?.id, result: { echoed: req.headers["x-key"] } });
    const envelope = await callMCP(
      faults.url(),
      "tools/call",
      { name: "t" },
      { headers: { "x-key": "k" }, sessionId: "s-9" },
    );
    expect(envelope).toEqual({ jsonrpc: "2.0", id: 1, result: { echoed: "k" }, sessionId: "s-9" });
    expect(faults.received[0]?.headers["mcp-session-id"]).toBe("s-9");
  });

  it("stops reading an SSE stream once the answer arrived", async () => {
    faults.on.POST = (req, res) => {
      openSse(res);
      sse(res, { jsonrpc: "2.0", method: "notifications/message", params: {} });
      sse(res, { jsonrpc: "2.0", id: req.body?.id, result: { first: true } });
      // the stream stays open: callMCP must not wait for its end
    };
    await expect(callMCP(faults.url(), "ping")).resolves.toMatchObject({ result: { first: true } });
  });

  it("times out with RequestTimeoutError, and aborts with the signal's reason", async () => {
    faults.on.POST = (_req, res) => openSse(res);
    await expect(callMCP(faults.url(), "ping", undefined, { timeout: 100 })).rejects.toBeInstanceOf(
      RequestTimeoutError,
    );

    const controller = new AbortController();
    const reason = new Error("stop");
    const call = callMCP(faults.url(), "ping", undefined, { signal: controller.signal });
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    await expect(
      callMCP(faults.url(), "ping", undefined, { signal: controller.signal }),
    ).rejects.toBe(reason);
  });

  it("maps HTTP failures like the transport does", async () => {
    faults.on.POST = (_req, res) => {
      res.writeHead(404).end("gone");
    };
    await expect(
      callMCP(faults.url(), "ping", undefined, { sessionId: "old" }),
    ).rejects.toBeInstanceOf(SessionExpiredError);
    await expect(callMCP(faults.url(), "ping")).rejects.toMatchObject({
      code: LocalErrorCode.HttpStatus,
      message: "HTTP 404: gone",
    });
  });

  it("names a malformed body", async () => {
    faults.on.POST = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" }).end("{]");
    };
    await expect(callMCP(faults.url(), "ping")).rejects.toMatchObject({
      code: LocalErrorCode.ProtocolViolation,
      message: expect.stringMatching(/^malformed JSON body/),
    });
  });

  it("refuses bad input before sending anything", async () => {
    await expect(callMCP("not a url", "ping")).rejects.toThrow(TypeError);
    await expect(callMCP("file:///etc/passwd", "ping")).rejects.toThrow(/http: or https:/);
    await expect(callMCP(faults.url(), "")).rejects.toThrow(/method/);
    await expect(callMCP(faults.url(), "ping", undefined, { timeout: -1 })).rejects.toThrow(
      /timeout/,
    );
    expect(faults.received).toEqual([]);
  });
});

describe("callMCP against server-everything over stateful Streamable HTTP", () => {
  let server: EverythingServer;
  beforeAll(async () => {
    server = await startEverything("streamableHttp");
  });
  afterAll(() => server?.stop());

  it("runs initialize, initialized, tools/list and tools/call in one session", async () => {
    const url = `${server.base}/mcp`;
    const init = await callMCP(url, "initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "call-mcp-test", version: "1.0.0" },
    });
    expect(init).toMatchObject({ id: 1, result: { serverInfo: expect.any(Object) } });
    const { sessionId } = init;
    expect(sessionId).toMatch(/\S/);
    const protocolVersion = String(
      (init as { result: { protocolVersion: string } }).result.protocolVersion,
    );
    const session = { sessionId: sessionId as string, protocolVersion };

    const initialized = await callMCP(url, "notifications/initialized", undefined, session);
    expect(initialized).toEqual({ jsonrpc: "2.0", accepted: true, sessionId });
    // Sent as a notification: the body carried no id.
    const list = await callMCP(url, "tools/list", {}, { ...session, id: 2 });
    expect(list).toMatchObject({ id: 2, sessionId, result: { tools: expect.any(Array) } });
    const call = await callMCP(
      url,
      "tools/call",
      { name: "echo", arguments: { message: "hi" } },
      { ...session, id: 3 },
    );
    expect(call).toMatchObject({
      id: 3,
      result: { content: [{ type: "text", text: "Echo: hi" }] },
    });
  });

  it("does the handshake in one call with initializeMCP", async () => {
    const url = `${server.base}/mcp`;
    const session = await initializeMCP(url, { clientInfo: { name: "t", version: "1" } });
    expect(session.sessionId).toMatch(/\S/);
    expect(session.result).toMatchObject({ serverInfo: expect.any(Object) });
    const list = await callMCP(
      url,
      "tools/list",
      {},
      {
        sessionId: session.sessionId as string,
        protocolVersion: session.protocolVersion,
      },
    );
    expect(list).toMatchObject({
      result: { tools: expect.arrayContaining([expect.objectContaining({ name: "echo" })]) },
    });
  });

  it("rejects with SessionExpiredError for a session the server does not know", async () => {
    await expect(
      callMCP(`${server.base}/mcp`, "tools/list", {}, { sessionId: "no-such-session" }),
    ).rejects.toBeInstanceOf(SessionExpiredError);
  });
});

describe("callMCP notifications", () => {
  let faults: FaultServer;
  beforeAll(async () => {
    faults = await startFaultServer();
  });
  afterAll(() => faults.close());

  it("sends notifications/* without an id", async () => {
    faults.on.POST = (_req, res) => {
      res.writeHead(202).end();
    };
    await expect(callMCP(faults.url(), "notifications/initialized")).resolves.toEqual({
      jsonrpc: "2.0",
      accepted: true,
      sessionId: undefined,
    });
    expect(faults.received[0]?.body).toEqual({
      jsonrpc: "2.0",
      method: "notifications/initialized",
    });
  });
});
