import { createLinkedTransportPair, type JsonRpcRequest } from "@awr/jsonrpc-core";
import { describe, expect, it } from "vitest";

async function connectedPair() {
  const [client, server] = createLinkedTransportPair();
  await Promise.all([client.connect(), server.connect()]);
  return { client, server };
}

describe("cancellation", () => {
  it("rejects with the signal's reason unchanged when already aborted, sending nothing", async () => {
    const { client } = await connectedPair();
    const reason = new Error("stop");
    const controller = new AbortController();
    controller.abort(reason);
    await expect(client.request("tools/call", {}, { signal: controller.signal })).rejects.toBe(
      reason,
    );
    await expect(client.notify("x", {}, { signal: controller.signal })).rejects.toBe(reason);
    expect(client.sent).toHaveLength(0);
  });

  it("sends notifications/cancelled to the peer and keeps the connection usable", async () => {
    const { client, server } = await connectedPair();
    const seen: string[] = [];
    server.onNotification = (n) => seen.push(`${n.method}:${JSON.stringify(n.params)}`);
    let held: JsonRpcRequest | undefined;
    server.onRequest = (request) => {
      if (request.method === "slow") {
        held = request;
        return new Promise(() => {});
      }
      return { pong: true };
    };
    const controller = new AbortController();
    const reason = new DOMException("aborted by test", "AbortError");
    const call = client.request("slow", {}, { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 5));
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    await new Promise((r) => setTimeout(r, 5));
    expect(held).toBeDefined();
    expect(seen).toEqual([
      `notifications/cancelled:${JSON.stringify({ requestId: held!.id, reason: "request aborted by the caller" })}`,
    ]);
    await expect(client.request("ping")).resolves.toEqual({ pong: true });
    expect(client.connected).toBe(true);
  });
});
