import {
  createLinkedTransportPair,
  JsonRpcError,
  type TransportCloseInfo,
} from "@awr/jsonrpc-core";
import { describe, expect, it } from "vitest";

async function connectedPair() {
  const [client, server] = createLinkedTransportPair({ timeout: 2000 });
  await Promise.all([client.connect(), server.connect()]);
  return { client, server };
}

describe("the linked transport pair", () => {
  it("carries requests, results, errors and notifications both ways", async () => {
    const { client, server } = await connectedPair();
    server.onRequest = (request) => {
      if (request.method === "add") {
        const { a, b } = request.params as { a: number; b: number };
        return { sum: a + b };
      }
      throw new JsonRpcError(-32602, "unsupported");
    };
    const notes: string[] = [];
    client.onNotification = (n) => notes.push(n.method);
    await expect(client.request("add", { a: 2, b: 3 })).resolves.toEqual({ sum: 5 });
    await expect(client.request("other")).rejects.toThrow("MCP error -32602: unsupported");
    await server.notify("notifications/message", { level: "info" });
    await new Promise((r) => setTimeout(r, 1));
    expect(notes).toEqual(["notifications/message"]);
  });

  it("answers requests without a handler with -32601", async () => {
    const { client } = await connectedPair();
    await expect(client.request("nothing/here")).rejects.toMatchObject({ code: -32601 });
  });

  it("routes progress to the caller's onprogress", async () => {
    const { client, server } = await connectedPair();
    server.onRequest = async (request) => {
      const token = (request.params as { _meta: { progressToken: number } })._meta.progressToken;
      await server.notify("notifications/progress", {
        progressToken: token,
        progress: 1,
        total: 2,
        message: "half",
      });
      return "done";
    };
    const progress: unknown[] = [];
    await expect(client.request("work", {}, { onprogress: (p) => progress.push(p) })).resolves.toBe(
      "done",
    );
    expect(progress).toEqual([{ progress: 1, total: 2, message: "half" }]);
  });

  it("reports malformed frames through onError and keeps going", async () => {
    const { client, server } = await connectedPair();
    const errors: Error[] = [];
    client.onError = (error) => errors.push(error);
    client.deliver("{not json");
    client.deliver('[{"jsonrpc":"2.0","method":"x"}]');
    server.onRequest = () => "still fine";
    await expect(client.request("ok")).resolves.toBe("still fine");
    expect(errors.map((e) => (e as { code?: string }).code)).toEqual([
      "PROTOCOL_VIOLATION",
      "PROTOCOL_VIOLATION",
    ]);
    expect(client.stats.malformedMessages).toBe(2);
  });

  it("close() is idempotent, rejects pending calls and tells the peer", async () => {
    const { client, server } = await connectedPair();
    server.onRequest = () => new Promise(() => {});
    const closes: TransportCloseInfo[] = [];
    client.onClose = (info) => closes.push(info);
    const serverCloses: TransportCloseInfo[] = [];
    server.onClose = (info) => serverCloses.push(info);
    const pending = client.request("hang");
    await Promise.all([client.close(), client.close()]);
    await expect(pending).rejects.toMatchObject({
      code: "TRANSPORT_CLOSED",
      message: "Transport closed",
    });
    await expect(client.request("again")).rejects.toMatchObject({ code: "TRANSPORT_CLOSED" });
    await new Promise((r) => setTimeout(r, 1));
    expect(closes).toEqual([{}]);
    expect(serverCloses[0]?.error?.message).toContain("peer closed");
    expect(server.connected).toBe(false);
  });

  it("after the peer is lost, later calls say Transport closed with the loss as cause", async () => {
    const { client, server } = await connectedPair();
    await client.close();
    await new Promise((r) => setTimeout(r, 1));
    const error = (await server.request("x").catch((e: unknown) => e)) as Error & { code: string };
    expect(error).toMatchObject({ code: "TRANSPORT_CLOSED" });
    expect((error.cause as Error).message).toContain("peer closed");
    await expect(server.close()).resolves.toBeUndefined();
  });
});
