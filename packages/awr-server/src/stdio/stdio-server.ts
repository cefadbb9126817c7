import type { Readable, Writable } from "node:stream";
import { DEFAULT_MAX_CONCURRENT_CALLS } from "../http/http-service.js";
import { CallLimiter } from "../internal/call-limiter.js";
import type { LedgerBackend } from "../ledger-backend.js";
import type { LedgerPort } from "../ledger-port.js";
import { createAwrServer } from "../server/create-awr-server.js";
import type { ToolHost } from "../server/tool-host.js";
import { AwrToolError } from "../tool-result.js";
import { StdioLineTransport } from "./stdio-line-transport.js";

/** The ledger client id of every stdio caller (TOOLS.md). */
export const STDIO_CLIENT = "stdio";

export interface StdioServerOptions {
  /** Absolute project root. */
  readonly root: string;
  readonly backend: LedgerBackend;
  readonly stdin?: Readable;
  readonly stdout?: Writable;
  readonly maxConcurrentCalls?: number;
  readonly log?: (line: string) => void;
}

export interface StdioServer {
  /** Resolves when the client closes stdin or close() is called. */
  readonly closed: Promise<void>;
  /** Lets in-flight calls finish (up to graceMs), then closes the transport and the ledger. */
  close(options?: { graceMs?: number }): Promise<void>;
}

/**
 * Serves one project over stdio. The ledger opens lazily on the first call: an uninitialised
 * root is served anyway, every tool answering how to initialise it, and nothing is created.
 */
export async function startStdioServer(options: StdioServerOptions): Promise<StdioServer> {
  const { root, backend } = options;
  const limiter = new CallLimiter(options.maxConcurrentCalls ?? DEFAULT_MAX_CONCURRENT_CALLS);
  let ledger: Promise<LedgerPort> | undefined;

  const host: ToolHost = {
    mode: "stdio",
    caller: { client: STDIO_CLIENT },
    limiter,
    async resolveProject(_key, _access, callOptions) {
      if (!ledger) {
        const identity = await backend.readIdentity(root, callOptions);
        if (identity === null) {
          throw new AwrToolError(
            "NotFound",
            `No AWR ledger in ${root}. Ask the user to run \`awr init --accept\` in that directory (or \`awr init --project ${root} --accept\`), then call again. Nothing was created.`,
            { root },
          );
        }
        ledger = backend.open(root, callOptions);
        ledger.catch(() => {
          ledger = undefined;
        });
      }
      return { ledger: await ledger, root };
    },
    log: options.log,
  };

  const server = createAwrServer(host);
  const transport = new StdioLineTransport(options.stdin, options.stdout);
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  server.onclose = () => resolveClosed();
  (options.stdin ?? process.stdin).once("end", () => resolveClosed());
  await server.connect(transport);

  let closing: Promise<void> | undefined;
  return {
    closed,
    close({ graceMs = 10_000 } = {}) {
      closing ??= (async () => {
        let timer: NodeJS.Timeout | undefined;
        const grace = new Promise<void>((resolve) => {
          timer = setTimeout(resolve, graceMs);
          timer.unref();
        });
        await Promise.race([limiter.idle(), grace]);
        clearTimeout(timer);
        await server.close();
        const open = await ledger?.catch(() => undefined);
        await open?.close();
        resolveClosed();
      })();
      return closing;
    },
  };
}
