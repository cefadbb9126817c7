import { LocalErrorCode, RequestTimeoutError, TransportError } from "@awr/jsonrpc-core";
import { callMCP, parseSSE, SessionExpiredError } from "@awr/transport-http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
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
    expect(envelope).toEqual({ jsonrpc: "2.0", id: 1, result: { echoed: "k" } });
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
