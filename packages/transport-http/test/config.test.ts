import { LocalErrorCode } from "@awr/jsonrpc-core";
import { createHttpTransport, type HttpTransportConfig } from "@awr/transport-http";
import { describe, expect, it } from "vitest";

describe("createHttpTransport with bad input", () => {
  const cases: [string, unknown, RegExp][] = [
    ["no config", undefined, /configuration object/],
    ["a URL that does not parse", { url: "::nope" }, /url is not a valid URL/],
    ["a non-HTTP URL", { url: "ws://127.0.0.1/mcp" }, /http: or https:/],
    ["an unknown type", { url: "http://127.0.0.1/mcp", type: "websocket" }, /type must be/],
    ["a negative timeout", { url: "http://127.0.0.1/mcp", timeout: -5 }, /timeout must be/],
    [
      "a NaN maxBodyBytes",
      { url: "http://127.0.0.1/mcp", maxBodyBytes: Number.NaN },
      /maxBodyBytes/,
    ],
    [
      "a zero backoff factor",
      { url: "http://127.0.0.1/mcp", reconnect: { factor: 0 } },
      /reconnect.factor/,
    ],
    ["a non-string header", { url: "http://127.0.0.1/mcp", headers: { "x-n": 1 } }, /header x-n/],
    [
      "a token that is not a function",
      { url: "http://127.0.0.1/mcp", getToken: "abc" },
      /getToken/,
    ],
    [
      "an auth provider without tokens()",
      { url: "http://127.0.0.1/mcp", authProvider: {} },
      /authProvider/,
    ],
  ];
  it.each(cases)("refuses %s with a TypeError naming the field", (_name, config, message) => {
    expect(() => createHttpTransport(config as HttpTransportConfig)).toThrow(TypeError);
    expect(() => createHttpTransport(config as HttpTransportConfig)).toThrow(message);
  });

  it("refuses to be used before connect() and after close()", async () => {
    const transport = createHttpTransport({ url: "http://127.0.0.1:1/mcp" });
    await expect(transport.request("ping")).rejects.toMatchObject({
      code: LocalErrorCode.TransportClosed,
    });
    await transport.connect();
    await transport.close();
    await transport.close();
    await expect(transport.notify("notifications/initialized")).rejects.toMatchObject({
      code: LocalErrorCode.TransportClosed,
    });
    await expect(transport.connect()).rejects.toMatchObject({
      code: LocalErrorCode.TransportClosed,
    });
  });

  it("rejects a call whose signal is already aborted with that reason, sending nothing", async () => {
    let calls = 0;
    const transport = createHttpTransport({
      url: "http://127.0.0.1:1/mcp",
      fetch: async () => {
        calls++;
        return new Response(null, { status: 202 });
      },
    });
    await transport.connect();
    const reason = new Error("already cancelled");
    await expect(
      transport.request("ping", undefined, { signal: AbortSignal.abort(reason) }),
    ).rejects.toBe(reason);
    await expect(
      transport.notify("notifications/initialized", undefined, {
        signal: AbortSignal.abort(reason),
      }),
    ).rejects.toBe(reason);
    expect(calls).toBe(0);
    await transport.close();
  });

  it("surfaces a failing token provider as TRANSPORT_FAILED", async () => {
    const transport = createHttpTransport({
      url: "http://127.0.0.1:1/mcp",
      getToken: () => {
        throw new Error("vault sealed");
      },
    });
    await transport.connect();
    await expect(transport.request("ping")).rejects.toMatchObject({
      code: LocalErrorCode.TransportFailed,
      message: "the bearer token provider failed: vault sealed",
    });
    await transport.close();
  });
});
