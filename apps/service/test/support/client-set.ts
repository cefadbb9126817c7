import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, afterEach, beforeAll } from "vitest";
import { tempDir } from "./projects.js";
import { httpClient, killAll, stdioClient } from "./service-process.js";

/** The temporary folder of a service test file and the MCP clients its tests open. */
export interface ClientSet {
  /** The folder, made before the file's first test (read it inside hooks and tests only). */
  readonly dir: string;
  /** Keeps clients opened elsewhere, to close them with the rest after the test. */
  keep(...clients: Client[]): void;
  /** A stdio client of a local awr-mcp on `root`, closed after the test. */
  stdio(root: string): Promise<Client>;
  /** A client of the shared HTTP service at `url` with `token`, closed after the test. */
  http(url: string, token: string): Promise<Client>;
  /** Closes every client opened so far (also done after each test). */
  closeAll(): Promise<void>;
}

/**
 * Registers the set-up and clean-up every service test file writes: a temporary folder named
 * `prefix…` before the tests, every client closed after each test, and at the end every spawned
 * service killed and the folder removed. Call it at the top of the file (or of a describe),
 * before the hooks that use its folder.
 */
export function useClientSet(prefix: string): ClientSet {
  let dir = "";
  let cleanup: (() => Promise<void>) | undefined;
  const open: Client[] = [];
  const set: ClientSet = {
    get dir() {
      return dir;
    },
    keep(...clients) {
      open.push(...clients);
    },
    async stdio(root) {
      const { client } = await stdioClient(root);
      open.push(client);
      return client;
    },
    async http(url, token) {
      const client = await httpClient(url, token);
      open.push(client);
      return client;
    },
    async closeAll() {
      await Promise.allSettled(open.splice(0).map((c) => c.close()));
    },
  };
  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir(prefix));
  });
  afterEach(async () => {
    await set.closeAll();
  });
  afterAll(async () => {
    killAll();
    await cleanup?.();
  });
  return set;
}
