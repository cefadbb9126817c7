import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { LedgerBackend, LedgerMethod, LedgerPort } from "@awr/awr-server";
import { PROJECT_TOOLS } from "@awr/awr-server";

/**
 * A stand-in ledger for tests of the server layer alone: identity lives in
 * `<root>/.awr/fake-identity`, and every method answers from `respond` (default: echo).
 */
export type FakeResponder = (
  method: LedgerMethod,
  input: Record<string, unknown>,
  caller: { client: string },
  root: string,
) => unknown;

export async function initFakeProject(root: string, projectId: string): Promise<void> {
  await mkdir(join(root, ".awr"), { recursive: true });
  await writeFile(join(root, ".awr", "fake-identity"), projectId);
}

/** The workstream part of a port (absent by default, as for a ledger without workstreams). */
export type FakeWorkstreams = (
  root: string,
) => Pick<LedgerPort, "workstream" | "assertProjectToolAllowed">;

export function fakeBackend(
  respond?: FakeResponder,
  workstreams?: FakeWorkstreams,
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
    async open(root) {
      opened.push(root);
      const port: Record<string, unknown> = {
        ...workstreams?.(root),
        close: async () => {
          closed.push(root);
        },
      };
      for (const tool of PROJECT_TOOLS) {
        port[tool.method] = async (input: Record<string, unknown>, caller: { client: string }) =>
          respond
            ? respond(tool.method, input, caller, root)
            : { project_revision: 1, method: tool.method, input, client: caller.client };
      }
      return port as unknown as LedgerPort;
    },
  };
}
