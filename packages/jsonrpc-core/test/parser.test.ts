import {
  classifyMessage,
  type JsonRpcMessage,
  parseMessage,
  serializeMessage,
} from "@awr/jsonrpc-core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

describe("parseMessage classifies every input without throwing", () => {
  it("recognises the four valid kinds", () => {
    expect(parseMessage('{"jsonrpc":"2.0","id":1,"method":"ping"}').kind).toBe("request");
    expect(parseMessage('{"jsonrpc":"2.0","method":"notifications/initialized"}').kind).toBe(
      "notification",
    );
    expect(parseMessage('{"jsonrpc":"2.0","id":"a","result":{}}').kind).toBe("result");
    expect(
      parseMessage('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}')
        .kind,
    ).toBe("error");
  });

  it.each([
    ["not JSON", "{nope", "not_json", -32700],
    ["a batch", '[{"jsonrpc":"2.0","id":1,"method":"ping"}]', "batch", -32600],
    ["a bare number", "42", "not_object", -32600],
    ["the wrong version", '{"jsonrpc":"1.0","id":1,"method":"ping"}', "bad_version", -32600],
    ["a missing version", '{"id":1,"method":"ping"}', "bad_version", -32600],
    ["an object id", '{"jsonrpc":"2.0","id":{},"method":"ping"}', "bad_id", -32600],
    ["a fractional id", '{"jsonrpc":"2.0","id":1.5,"method":"ping"}', "bad_id", -32600],
    ["a null request id", '{"jsonrpc":"2.0","id":null,"method":"ping"}', "null_id_request", -32600],
    [
      "result and error together",
      '{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"x"}}',
      "result_and_error",
      -32600,
    ],
    ["neither result nor error", '{"jsonrpc":"2.0","id":1}', "neither_result_nor_error", -32600],
    ["a null id on a result", '{"jsonrpc":"2.0","id":null,"result":{}}', "bad_id", -32600],
    [
      "a malformed error object",
      '{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}',
      "bad_error_object",
      -32600,
    ],
    ["a numeric method", '{"jsonrpc":"2.0","id":1,"method":7}', "bad_method", -32600],
    ["scalar params", '{"jsonrpc":"2.0","id":1,"method":"x","params":3}', "bad_params", -32600],
    [
      "a method beside a result",
      '{"jsonrpc":"2.0","id":1,"method":"x","result":1}',
      "method_and_response",
      -32600,
    ],
  ])("refuses %s", (_name, input, reason, code) => {
    const verdict = parseMessage(input);
    expect(verdict).toMatchObject({ kind: "invalid", reason, errorCode: code });
  });

  it("keeps the id of an invalid request so a server can address its error", () => {
    expect(parseMessage('{"jsonrpc":"2.0","id":9,"method":5}')).toMatchObject({
      kind: "invalid",
      id: 9,
    });
  });

  it("refuses oversized input before parsing it", () => {
    const big = JSON.stringify({ jsonrpc: "2.0", method: "x", params: { blob: "é".repeat(600) } });
    expect(parseMessage(big, { maxBytes: 1000 })).toMatchObject({
      kind: "invalid",
      reason: "oversized",
      errorCode: -32700,
    });
    expect(parseMessage(big, { maxBytes: 2000 }).kind).toBe("notification");
  });

  it("never throws on arbitrary strings", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const verdict = parseMessage(text);
        expect(["request", "notification", "result", "error", "invalid"]).toContain(verdict.kind);
      }),
    );
  });

  it("never throws on arbitrary JSON values", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(() => classifyMessage(value)).not.toThrow();
      }),
    );
  });
});

const id = fc.oneof(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.string());
const params = fc.dictionary(fc.string(), fc.jsonValue());
const message: fc.Arbitrary<JsonRpcMessage> = fc.oneof(
  fc.record({
    jsonrpc: fc.constant("2.0" as const),
    id,
    method: fc.string({ minLength: 1 }),
    params,
  }),
  fc.record({ jsonrpc: fc.constant("2.0" as const), method: fc.string({ minLength: 1 }), params }),
  fc.record({ jsonrpc: fc.constant("2.0" as const), id, result: fc.jsonValue() }),
  fc.record({
    jsonrpc: fc.constant("2.0" as const),
    id,
    error: fc.record({ code: fc.integer(), message: fc.string() }),
  }),
);

describe("serializeMessage", () => {
  it("round-trips every valid message through parseMessage", () => {
    fc.assert(
      fc.property(message, (original) => {
        const verdict = parseMessage(serializeMessage(original));
        expect(verdict.kind).not.toBe("invalid");
        if (verdict.kind !== "invalid")
          expect(verdict.message).toEqual(JSON.parse(JSON.stringify(original)));
      }),
    );
  });

  it("never emits a raw line break, whatever the strings hold", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const frame = serializeMessage({
          jsonrpc: "2.0",
          method: "x",
          params: { text: `${text}\n\r\u2028\u2029` },
        });
        expect(frame).not.toMatch(/[\n\r\u2028\u2029]/);
        expect(JSON.parse(frame).params.text).toBe(`${text}\n\r\u2028\u2029`);
      }),
    );
  });

  it("raises a local error for values JSON cannot carry", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => serializeMessage({ jsonrpc: "2.0", method: "x", params: cyclic })).toThrow(
      expect.objectContaining({ code: "SERIALIZE_FAILED" }),
    );
    expect(() => serializeMessage({ jsonrpc: "2.0", method: "x", params: { n: 1n } })).toThrow(
      /cannot serialise/,
    );
  });
});
