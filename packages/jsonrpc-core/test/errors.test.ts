import {
  createIdAllocator,
  isJsonRpcError,
  isLocalError,
  JsonRpcError,
  JsonRpcErrorCode,
  LocalErrorCode,
  RequestTimeoutError,
  TransportError,
} from "@awr/jsonrpc-core";
import { describe, expect, it } from "vitest";

describe("error code tables", () => {
  it("keep their published values", () => {
    expect(JsonRpcErrorCode).toMatchInlineSnapshot(`
      {
        "InternalError": -32603,
        "InvalidParams": -32602,
        "InvalidRequest": -32600,
        "MethodNotFound": -32601,
        "ParseError": -32700,
        "ResourceNotFound": -32002,
        "ServerErrorRangeEnd": -32000,
        "ServerErrorRangeStart": -32099,
        "UrlElicitationRequired": -32042,
      }
    `);
    expect(LocalErrorCode).toMatchInlineSnapshot(`
      {
        "FrameTooLarge": "FRAME_TOO_LARGE",
        "HttpStatus": "HTTP_STATUS",
        "IdsExhausted": "IDS_EXHAUSTED",
        "ProcessExited": "PROCESS_EXITED",
        "ProtocolViolation": "PROTOCOL_VIOLATION",
        "RequestCancelled": "REQUEST_CANCELLED",
        "RequestTimeout": "REQUEST_TIMEOUT",
        "SerializeFailed": "SERIALIZE_FAILED",
        "SessionExpired": "SESSION_EXPIRED",
        "SpawnFailed": "SPAWN_FAILED",
        "TransportClosed": "TRANSPORT_CLOSED",
        "TransportFailed": "TRANSPORT_FAILED",
      }
    `);
  });
});

describe("JsonRpcError", () => {
  it("reads as MCP error <code>: <message> and round-trips its wire object", () => {
    const error = JsonRpcError.fromObject({ code: -32602, message: "bad", data: { field: "x" } });
    expect(error.message).toBe("MCP error -32602: bad");
    expect(error.toObject()).toEqual({ code: -32602, message: "bad", data: { field: "x" } });
    expect(isJsonRpcError(error)).toBe(true);
    expect(isLocalError(error)).toBe(false);
  });
});

describe("local errors", () => {
  it("carry string codes, details, the stderr tail and the cause", () => {
    const cause = new Error("EPIPE");
    const error = new TransportError(LocalErrorCode.TransportFailed, "write failed", {
      cause,
      stderrTail: "boom",
      details: { bytes: 3 },
    });
    expect(error.code).toBe("TRANSPORT_FAILED");
    expect(error.cause).toBe(cause);
    expect(error.message).toContain("boom");
    expect(error.details).toEqual({ bytes: 3 });
    expect(isLocalError(error)).toBe(true);
    const timeout = new RequestTimeoutError("tools/call", 4, 100);
    expect(timeout).toMatchObject({
      code: "REQUEST_TIMEOUT",
      method: "tools/call",
      requestId: 4,
      timeoutMs: 100,
    });
  });
});

describe("createIdAllocator", () => {
  it("counts integers from 1 and never repeats", () => {
    const ids = createIdAllocator();
    expect([ids.next(), ids.next(), ids.next()]).toEqual([1, 2, 3]);
  });

  it("offers a string mode", () => {
    const ids = createIdAllocator({ mode: "string", prefix: "req-" });
    expect([ids.next(), ids.next()]).toEqual(["req-1", "req-2"]);
  });
});
