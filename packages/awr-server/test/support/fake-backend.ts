import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { LedgerBackend, LedgerCallOptions, LedgerPort } from "@awr/awr-server";

/**
 * A stand-in ledger for tests of the server layer alone: identity lives in
 * `<root>/.awr/fake-identity`, and every tool answers from `respond` (default: echo).
 */
export type FakeResponder = (
  tool: string,
  input: Record<string, unknown>,
  caller: { client: string },
  root: string,
  options: LedgerCallOptions,
) => unknown;

export async function initFakeProject(root: string, projectId: string): Promise<void> {
  await mkdir(join(root, ".awr"), { recursive: true });
  await writeFile(join(root, ".awr", "fake-identity"), projectId);
}

/** The workstream boundary of a port (absent by default, as for a ledger without workstreams). */
export type FakeBoundary = (root: string) => Pick<LedgerPort, "assertProjectToolAllowed">;

export function fakeBackend(
  respond?: FakeResponder,
  boundary?: FakeBoundary,
): LedgerBackend & { opened: string[]; closed: string[] } {
  const opened: string[] = [];
  const closed: string[] = [];
  return {
    opened,
    closed,
    async readIdentity(root) {
      try {
        return { project_id: (await readFile(join(root, ".awr", "fake-identity"), "utf8")).trim() };
      } catch {
        return null;
      }
    },
    async open(root): Promise<LedgerPort> {
      opened.push(root);
      return {
        ...boundary?.(root),
        close: async () => {
          closed.push(root);
        },
        execute: async (tool, input, caller, options = {}) =>
          (respond
            ? await respond(tool, input, caller, root, options)
            : { project_revision: 1, tool, input, client: caller.client }) as Record<
            string,
            unknown
          >,
      };
    },
  };
}
