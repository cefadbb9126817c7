import { access, stat } from "node:fs/promises";
import { join } from "node:path";
import { openLedger } from "@awr/awr-ledger";
import { assertProjectToolAllowed } from "@awr/awr-ledger/workstreams";
import type { LedgerBackend } from "./ledger-backend.js";
import type { LedgerPort } from "./ledger-port.js";

const MANIFEST = join(".awr", "project.toml");

interface Opened {
  readonly projectId: string;
  /** Device and inode of `<root>/.awr` when opened: a swapped directory changes them. */
  readonly stamp: string;
}

const opened = new WeakMap<LedgerPort, Opened>();

async function awrStamp(root: string): Promise<string | undefined> {
  const info = await stat(join(root, ".awr")).catch(() => undefined);
  return info ? `${info.dev}:${info.ino}` : undefined;
}

/**
 * The ledger backend built on `@awr/awr-ledger`'s openLedger. The ledger chooses its storage from
 * the project manifest (SQLite in `.awr/state.db`, or PostgreSQL from the URL in the environment
 * variable the manifest names) and loads the driver the application installed.
 */
export function defaultBackend(options: { env?: NodeJS.ProcessEnv } = {}): LedgerBackend {
  const env = options.env ?? process.env;
  const open = async (root: string, callOptions: { signal?: AbortSignal } = {}) => {
    const ledger = await openLedger({ root, env, signal: callOptions.signal });
    const port: LedgerPort = {
      execute: (tool, input, caller, o) => ledger.executeAdmitted(tool, input, caller, o),
      assertProjectToolAllowed: (tool, access, o) =>
        assertProjectToolAllowed(ledger, tool, access, o),
      close: () => ledger.close(),
    };
    opened.set(port, { projectId: ledger.projectId, stamp: (await awrStamp(root)) ?? "" });
    return port;
  };
  return {
    open,
    async readIdentity(root, callOptions = {}) {
      callOptions.signal?.throwIfAborted();
      // Checked first so that an uninitialised root is left exactly as it was.
      const initialised = await access(join(root, MANIFEST)).then(
        () => true,
        () => false,
      );
      if (!initialised) return null;
      let ledger: Awaited<ReturnType<typeof openLedger>>;
      try {
        ledger = await openLedger({ root, env, signal: callOptions.signal });
      } catch (error) {
        // openLedger's NotFound is a root that is not initialised (a manifest without its
        // ledger, as in a fresh clone), and it created nothing there. Recognised by name and
        // code, like every LedgerError here: a bundle may hold its own copy of the class.
        const { name, code } = error as { name?: unknown; code?: unknown };
        if (name === "LedgerError" && code === "NotFound") return null;
        throw error;
      }
      try {
        return { project_id: ledger.projectId };
      } finally {
        await ledger.close();
      }
    },
    async checkIdentity(root, ledger) {
      const known = opened.get(ledger);
      if (!known) return null;
      const stamp = await awrStamp(root);
      const manifest = await access(join(root, MANIFEST)).then(
        () => true,
        () => false,
      );
      return stamp === known.stamp && manifest ? { project_id: known.projectId } : null;
    },
  };
}
