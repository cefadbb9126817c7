import {
  JsonRpcError,
  type JsonRpcMessage,
  type JsonRpcRequest,
  RequestCorrelator,
  RequestTimeoutError,
  TransportError,
} from "@awr/jsonrpc-core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

function setup(options: { defaultTimeout?: number; quarantineSize?: number } = {}) {
  const sent: JsonRpcMessage[] = [];
  const errors: Error[] = [];
  const correlator = new RequestCorrelator({
    send: async (message) => {
      sent.push(message);
    },
    onError: (error) => errors.push(error),
    ...options,
  });
  const lastRequest = () =>
    sent.filter((m): m is JsonRpcRequest => "id" in m && "method" in m).at(-1)!;
  const cancellations = () =>
    sent.filter((m) => "method" in m && m.method === "notifications/cancelled");
  return { correlator, sent, errors, lastRequest, cancellations };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("RequestCorrelator", () => {
  it("resolves each request with the result carrying its id, in any order", async () => {
    const { correlator, sent } = setup();
    const first = correlator.request("a");
    const second = correlator.request("b");
    await vi.advanceTimersByTimeAsync(0);
    const [req1, req2] = sent as JsonRpcRequest[];
    expect(correlator.handleResponse({ jsonrpc: "2.0", id: req2!.id, result: "two" })).toBe(
      "matched",
    );
    expect(correlator.handleResponse({ jsonrpc: "2.0", id: req1!.id, result: "one" })).toBe(
      "matched",
    );
    await expect(first).resolves.toBe("one");
    await expect(second).resolves.toBe("two");
    expect(correlator.stats.pending).toBe(0);
  });

  it("rejects with a JsonRpcError when the peer answers with an error", async () => {
    const { correlator, lastRequest } = setup();
    const call = correlator.request("tools/call");
    await vi.advanceTimersByTimeAsync(0);
    correlator.handleResponse({
      jsonrpc: "2.0",
      id: lastRequest().id,
      error: { code: -32602, message: "nope" },
    });
    await expect(call).rejects.toThrow(JsonRpcError);
    await expect(call).rejects.toThrow("MCP error -32602: nope");
  });

  it("times out with a typed error and tells the peer", async () => {
    const { correlator, cancellations } = setup();
    const call = correlator.request("slow", {}, { timeout: 1000 });
    const settled = expect(call).rejects.toBeInstanceOf(RequestTimeoutError);
    await vi.advanceTimersByTimeAsync(1000);
    await settled;
    expect(cancellations()).toHaveLength(1);
    expect(cancellations()[0]).toMatchObject({ params: { requestId: 1 } });
  });

  it("times every request out at its own deadline, whatever was sent before or answered", async () => {
    const { correlator, lastRequest } = setup();
    const outcomes: string[] = [];
    const track = (name: string, call: Promise<unknown>) =>
      call.then(
        () => outcomes.push(`${name} answered`),
        (error: RequestTimeoutError) => outcomes.push(`${name} timed out after ${error.timeoutMs}`),
      );
    const long = track("long", correlator.request("a", {}, { timeout: 500 }));
    const answered = track("answered", correlator.request("b", {}, { timeout: 50 }));
    const answeredId = lastRequest().id;
    const short = track("short", correlator.request("c", {}, { timeout: 100 }));
    await vi.advanceTimersByTimeAsync(10);
    correlator.handleResponse({ jsonrpc: "2.0", id: answeredId, result: {} });
    await vi.advanceTimersByTimeAsync(89);
    expect(outcomes).toEqual(["answered answered"]);
    await vi.advanceTimersByTimeAsync(1);
    expect(outcomes).toEqual(["answered answered", "short timed out after 100"]);
    await vi.advanceTimersByTimeAsync(399);
    expect(correlator.stats.pending).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await Promise.all([long, answered, short]);
    expect(outcomes.at(-1)).toBe("long timed out after 500");
    expect(correlator.stats.pending).toBe(0);
    // A request sent after the others ended gets its full timeout too.
    const later = track("later", correlator.request("d", {}, { timeout: 30 }));
    await vi.advanceTimersByTimeAsync(29);
    expect(outcomes).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1);
    await later;
    expect(outcomes.at(-1)).toBe("later timed out after 30");
  });

  it("never cancels initialize, even when it times out", async () => {
    const { correlator, cancellations } = setup();
    const call = correlator.request("initialize", {}, { timeout: 10 });
    const settled = expect(call).rejects.toBeInstanceOf(RequestTimeoutError);
    await vi.advanceTimersByTimeAsync(10);
    await settled;
    expect(cancellations()).toHaveLength(0);
  });

  it("routes progress by token and can reset the timeout, up to maxTotalTimeout", async () => {
    const { correlator, lastRequest } = setup();
    const updates: number[] = [];
    const call = correlator.request(
      "long",
      { x: 1 },
      {
        timeout: 100,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: 250,
        onprogress: (p) => updates.push(p.progress),
      },
    );
    await vi.advanceTimersByTimeAsync(0);
    const token = (lastRequest().params as { _meta: { progressToken: number } })._meta
      .progressToken;
    expect(lastRequest().params).toMatchObject({ x: 1 });
    for (let i = 1; i <= 2; i++) {
      await vi.advanceTimersByTimeAsync(90);
      expect(correlator.handleProgress({ progressToken: token, progress: i, total: 10 })).toBe(
        true,
      );
    }
    expect(updates).toEqual([1, 2]);
    expect(correlator.isPending(token)).toBe(true);
    const settled = expect(call).rejects.toMatchObject({ code: "REQUEST_TIMEOUT", timeoutMs: 250 });
    await vi.advanceTimersByTimeAsync(70);
    await settled;
  });

  it("does not reset the timeout on progress unless asked", async () => {
    const { correlator, lastRequest } = setup();
    const call = correlator.request("long", {}, { timeout: 100, onprogress: () => {} });
    await vi.advanceTimersByTimeAsync(60);
    correlator.handleProgress({ progressToken: lastRequest().id, progress: 1 });
    const settled = expect(call).rejects.toBeInstanceOf(RequestTimeoutError);
    await vi.advanceTimersByTimeAsync(40);
    await settled;
  });

  it("drops late responses to cancelled ids quietly, and reports other unknown ids", async () => {
    const { correlator, errors, lastRequest } = setup();
    const controller = new AbortController();
    const call = correlator.request("x", {}, { signal: controller.signal });
    await vi.advanceTimersByTimeAsync(0);
    const { id } = lastRequest();
    controller.abort(new Error("user gave up"));
    await expect(call).rejects.toThrow("user gave up");
    expect(correlator.handleResponse({ jsonrpc: "2.0", id, result: "late" })).toBe("late");
    expect(errors).toHaveLength(0);
    expect(correlator.handleResponse({ jsonrpc: "2.0", id: 999, result: "?" })).toBe("unknown");
    expect(errors[0]).toBeInstanceOf(TransportError);
    expect(correlator.stats).toMatchObject({ lateResponses: 1, unknownResponses: 1 });
  });

  it("keeps the quarantine bounded", async () => {
    const { correlator } = setup({ quarantineSize: 2 });
    const calls = [1, 2, 3].map(() =>
      correlator.request("x", {}, { timeout: 5 }).catch(() => undefined),
    );
    await vi.advanceTimersByTimeAsync(5);
    await Promise.all(calls);
    expect(correlator.handleResponse({ jsonrpc: "2.0", id: 1, result: 0 })).toBe("unknown");
    expect(correlator.handleResponse({ jsonrpc: "2.0", id: 3, result: 0 })).toBe("late");
  });

  it("rejects a failed write for that request alone", async () => {
    const correlator = new RequestCorrelator({
      send: async () => Promise.reject(new Error("EPIPE")),
    });
    await expect(correlator.request("x")).rejects.toThrow("EPIPE");
    expect(correlator.stats.pending).toBe(0);
  });

  it("close() rejects everything pending and every later request", async () => {
    const { correlator } = setup();
    const calls = [correlator.request("a"), correlator.request("b")];
    correlator.close();
    for (const call of calls) await expect(call).rejects.toThrow("Transport closed");
    await expect(correlator.request("c")).rejects.toMatchObject({ code: "TRANSPORT_CLOSED" });
  });

  it("reports an error response with a null id as unknown", () => {
    const { correlator, errors } = setup();
    expect(
      correlator.handleResponse({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32700, message: "Parse error" },
      }),
    ).toBe("unknown");
    expect(errors[0]?.message).toContain("-32700");
  });
});
