import { LocalErrorCode, RequestTimeoutError } from "@awr/jsonrpc-core";
import { afterEach, describe, expect, it } from "vitest";
import { collectErrors, TransportPool } from "./helpers/misbehaving.js";

const pool = new TransportPool();
afterEach(() => pool.closeAll());

describe("cancelling stdio requests", () => {
  it("rejects with the caller's abort reason unchanged and tells the server with notifications/cancelled", async () => {
    const transport = pool.misbehaving();
    await transport.connect();
    const controller = new AbortController();
    const reason = new Error("the user pressed escape");
    const pending = transport.request("sleep", { ms: 5_000 }, { signal: controller.signal });
    // The fixture reads in order: once the echo is answered, it has read the sleep request.
    await transport.request("echo", {});
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    const { ids } = await transport.request<{ ids: unknown[] }>("cancellations");
    expect(ids).toEqual([1]);
    expect(transport.connected).toBe(true);
  });

  it("drops the late response of a cancelled request quietly and counts it", async () => {
    const transport = pool.misbehaving();
    const errors = collectErrors(transport);
    await transport.connect();
    const controller = new AbortController();
    // `ordered`: the fixture answers in request order, so the echo's answer follows the late one.
    const pending = transport.request(
      "sleep",
      { ms: 100, ordered: true },
      { signal: controller.signal },
    );
    const outcome = pending.catch((error: unknown) => error);
    controller.abort();
    expect(await outcome).toBe(controller.signal.reason);
    await expect(transport.request("echo", { after: "late" })).resolves.toEqual({ after: "late" });
    expect(transport.stats.lateResponses).toBe(1);
    expect(transport.stats.unknownResponses).toBe(0);
    expect(errors).toEqual([]);
  });

  it("rejects a request that was aborted before it was sent without writing it", async () => {
    const transport = pool.misbehaving();
    await transport.connect();
    const controller = new AbortController();
    controller.abort(new Error("never mind"));
    await expect(transport.request("echo", {}, { signal: controller.signal })).rejects.toThrow(
      "never mind",
    );
    await expect(
      transport.notify("notifications/x", {}, { signal: controller.signal }),
    ).rejects.toThrow("never mind");
    await expect(transport.request<{ count: number }>("notifications")).resolves.toMatchObject({
      count: 0,
    });
  });

  it("times out with a typed RequestTimeoutError and cancels the request on the server", async () => {
    const transport = pool.misbehaving();
    await transport.connect();
    const error = await transport
      .request("sleep", { ms: 300, ordered: true }, { timeout: 20 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error).toMatchObject({ method: "sleep", timeoutMs: 20 });
    const { ids } = await transport.request<{ ids: unknown[] }>("cancellations");
    expect(ids).toEqual([1]);
    expect(transport.stats.lateResponses).toBe(1);
  });

  it("rejects connect() with the abort reason and starts no process when the signal is already aborted", async () => {
    const transport = pool.misbehaving();
    const reason = new Error("shutting down");
    await expect(transport.connect({ signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(transport.pid).toBeUndefined();
  });

  it("rejects connect() with the abort reason when the signal aborts while it opens", async () => {
    const transport = pool.misbehaving();
    const controller = new AbortController();
    const reason = new Error("changed my mind");
    const connecting = transport.connect({ signal: controller.signal });
    controller.abort(reason);
    await expect(connecting).rejects.toBe(reason);
    expect(transport.connected).toBe(false);
  });

  it("starts no server when close() comes while connect() is opening", async () => {
    const transport = pool.misbehaving();
    const connecting = transport.connect().catch((error: unknown) => error);
    await transport.close();
    expect(await connecting).toMatchObject({ code: LocalErrorCode.TransportClosed });
    expect(transport.pid).toBeUndefined();
  });
});
