import { readFileSync } from "node:fs";
import { LocalErrorCode, TransportError } from "@awr/jsonrpc-core";
import { afterEach, describe, expect, it } from "vitest";
import { TransportPool } from "./helpers/misbehaving.js";
import { isRunning } from "./helpers/processes.js";

const pool = new TransportPool();
afterEach(() => pool.closeAll());

describe("closing a stdio transport", () => {
  it("rejects pending requests with Transport closed and resolves once the server has exited", async () => {
    const transport = pool.misbehaving([], { closeGraceMs: 100 });
    await transport.connect();
    const pid = transport.pid as number;
    const pending = transport.request("sleep", { ms: 10_000 });
    const outcome = pending.catch((error: unknown) => error);
    await transport.close();
    expect(await outcome).toMatchObject({
      code: LocalErrorCode.TransportClosed,
      message: "Transport closed",
    });
    expect(isRunning(pid)).toBe(false);
    expect(transport.connected).toBe(false);
    expect(transport.exitStatus).toBeDefined();
  });

  it("is idempotent, and requests after it reject as closed", async () => {
    const transport = pool.misbehaving();
    const closes: unknown[] = [];
    transport.onClose = (info) => closes.push(info);
    await transport.connect();
    await Promise.all([transport.close(), transport.close()]);
    await transport.close();
    expect(closes).toEqual([{}]);
    await expect(transport.request("echo", {})).rejects.toMatchObject({
      code: LocalErrorCode.TransportClosed,
    });
    await expect(transport.connect()).rejects.toBeInstanceOf(TransportError);
  });

  it("leaves neither the server nor the process it started running", async () => {
    // The grandchild keeps the fixture alive after its stdin ends, so close() escalates to signals.
    const transport = pool.misbehaving([], { closeGraceMs: 100 });
    await transport.connect();
    const { pid: grandchild } = await transport.request<{ pid: number }>("grandchild");
    expect(isRunning(grandchild)).toBe(true);
    await transport.close();
    expect(isRunning(transport.pid as number)).toBe(false);
    expect(isRunning(grandchild)).toBe(false);
  });

  it.runIf(process.platform === "linux")(
    "leads its own process group by default; processGroup: false keeps ours, and close() stops the server",
    async () => {
      const pgrpOf = (pid: number | "self") => {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
      };
      const grouped = pool.misbehaving();
      await grouped.connect();
      expect(pgrpOf(grouped.pid as number)).toBe(grouped.pid);
      const plain = pool.misbehaving([], { processGroup: false });
      await plain.connect();
      expect(pgrpOf(plain.pid as number)).toBe(pgrpOf("self"));
      await plain.close();
      expect(isRunning(plain.pid as number)).toBe(false);
    },
  );

  it("also stops what a server left behind when the server itself exits on the end of stdin", async () => {
    const transport = pool.misbehaving();
    await transport.connect();
    const { pid: grandchild } = await transport.request<{ pid: number }>("grandchild", {
      detach: true,
    });
    await transport.close();
    expect(transport.exitStatus).toEqual({ code: 0, signal: null });
    expect(isRunning(grandchild)).toBe(false);
  });

  it("kills a server that ignores the end of stdin and SIGTERM within the configured graces", async () => {
    const stderr: string[] = [];
    const transport = pool.misbehaving(["--ignore-sigterm"], {
      closeGraceMs: 50,
      killGraceMs: 50,
      onStderr: (chunk) => stderr.push(chunk),
    });
    await transport.connect();
    const { pid: grandchild } = await transport.request<{ pid: number }>("grandchild");
    await transport.close();
    expect(isRunning(transport.pid as number)).toBe(false);
    expect(isRunning(grandchild)).toBe(false);
    expect(transport.exitStatus).toEqual({ code: null, signal: "SIGKILL" });
    expect(stderr.join("")).toContain("ignoring SIGTERM");
  });

  it("stops a server that closed its stdout but kept running, and reports the lost connection", async () => {
    const transport = pool.misbehaving([], { closeGraceMs: 50, killGraceMs: 50 });
    const closed = new Promise<Error | undefined>((resolve) => {
      transport.onClose = (info) => resolve(info.error);
    });
    await transport.connect();
    await transport.request("close_stdout");
    const error = await closed;
    expect(error).toMatchObject({ code: LocalErrorCode.TransportClosed });
    expect(error?.message).toContain('server "misbehaving" closed its stdout');
    await transport.close();
    expect(isRunning(transport.pid as number)).toBe(false);
  });
});
