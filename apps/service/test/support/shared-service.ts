import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll } from "vitest";
import type { ClientSet } from "./client-set.js";
import { makeProject, writeRegistry } from "./projects.js";
import { type RunningService, startHttpService } from "./service-process.js";

/** The shared HTTP service of a group of tests, and its clients. */
export interface SharedService {
  /** The running service (started before the group's first test). */
  readonly running: RunningService;
  /** The registry file it runs on and the token environment it needs. */
  readonly registry: { file: string; env: Record<string, string> };
  /** A client with `token`, closed after the test. */
  connect(token: string): Promise<Client>;
  /** Stops the service (SIGTERM) and starts it again on the same registry; gives its exit code. */
  restart(): Promise<number | string>;
}

/**
 * Starts the shared service on the registry `registryIn` writes into the set's folder before
 * the tests of the current file or describe, and stops it after them.
 */
export function useSharedService(
  set: ClientSet,
  registryIn: (dir: string) => Promise<{ file: string; env: Record<string, string> }>,
): SharedService {
  let registry: { file: string; env: Record<string, string> } | undefined;
  let running: RunningService | undefined;
  const started = (): RunningService => {
    if (running === undefined) throw new Error("the shared service has not started");
    return running;
  };
  beforeAll(async () => {
    registry = await registryIn(set.dir);
    running = await startHttpService(registry.file, registry.env);
  }, 60_000);
  afterAll(async () => {
    await running?.stop();
  });
  return {
    get running() {
      return started();
    },
    get registry() {
      if (registry === undefined) throw new Error("the shared service has not started");
      return registry;
    },
    connect: (token) => set.http(started().url, token),
    async restart() {
      const code = await started().stop("SIGTERM");
      const { file, env } = registry as { file: string; env: Record<string, string> };
      running = await startHttpService(file, env);
      return code;
    },
  };
}

/** The tokens of the two writers and the reader of `alphaWithTwoWritersAndReader`. */
export const ALICE_BOB_READER = {
  alice: "a".repeat(48),
  bob: "b".repeat(48),
  reader: "r".repeat(48),
};

/**
 * Makes project alpha (the standard work ledger) in `dir` and a registry where alice and bob
 * write it and reader only reads it; `onRoot` is told the project's root.
 */
export async function alphaWithTwoWritersAndReader(
  dir: string,
  onRoot: (root: string) => void,
): Promise<{ file: string; env: Record<string, string> }> {
  const alpha = await makeProject(dir, "alpha");
  onRoot(alpha.root);
  return writeRegistry(
    dir,
    [{ key: "alpha", ...alpha }],
    [
      { id: "alice", token: ALICE_BOB_READER.alice, write: ["alpha"] },
      { id: "bob", token: ALICE_BOB_READER.bob, write: ["alpha"] },
      { id: "reader", token: ALICE_BOB_READER.reader, read: ["alpha"] },
    ],
  );
}
