import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { connect, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** One read of the server's stdout at most: the size Node's own stream reads use. */
const READ_BUFFER_BYTES = 64 * 1024;

/** Whether the server's stdout can be a channel of our own (POSIX: a UNIX socket). */
export const USE_OUTPUT_CHANNEL = process.platform !== "win32";

export interface OutputChannel {
  /** The server's end: pass it to `spawn` as stdout, then destroy it (the child holds a copy). */
  readonly serverEnd: Socket;
  /** Our end: it reads into one reused buffer; `end`, `close` and `error` are its events. */
  readonly reader: Socket;
}

/**
 * The server's stdout as a connected UNIX socket (what libuv's `"pipe"` makes too) whose reading
 * end is a `net.Socket` with `onread`: every read lands in one reused buffer and goes straight to
 * `onData`. The stream a `"pipe"` stdout gives costs, on every read, a fresh 64 KiB allocation
 * copied to size, a Buffer, a push through the Readable machinery, a `data` event and a
 * read-more tick. `onData` gets a view of the reused buffer, valid only during the call: what
 * it keeps, it copies (LineDecoder does).
 * The socket is bound in a fresh directory only this user can enter (so no other user can
 * connect in its place), accepted once, and both are removed before this resolves.
 */
export async function openOutputChannel(onData: (chunk: Buffer) => void): Promise<OutputChannel> {
  const directory = mkdtempSync(join(tmpdir(), "awr-stdio-"));
  const server = createServer();
  let reader: Socket | undefined;
  try {
    const path = join(directory, "stdout.sock");
    server.listen(path);
    await once(server, "listening");
    const accepted = once(server, "connection") as Promise<[Socket]>;
    const buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
    reader = connect({
      path,
      onread: {
        buffer,
        callback: (bytes: number) => {
          onData(buffer.subarray(0, bytes));
          return true;
        },
      },
    });
    const failed = once(reader, "error").then(([error]) => Promise.reject(error));
    const [serverEnd] = await Promise.race([accepted, failed]);
    failed.catch(() => {});
    return { serverEnd, reader };
  } catch (error) {
    reader?.destroy();
    throw error;
  } finally {
    // Stops listening at once (its "close" waits for the accepted connection, the server's).
    server.close();
    rmSync(directory, { recursive: true, force: true });
  }
}
