import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { initProject } from "@awr/awr-ledger";
import type { AdmittedInput } from "@awr/awr-ledger/catalog";
import { CallLimiter, defaultBackend, type LedgerPort } from "@awr/awr-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectInMemory } from "./support/in-memory.js";

let dir: string;
let ledger: LedgerPort;

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "awr-gate-")));
  await writeFile(
    join(dir, "work-ledger.yaml"),
    "milestones: []\nwork_items:\n  - id: W-1\n    title: One\n    status: ready\n",
  );
  await initProject({ root: dir, accept: true });
  ledger = await defaultBackend().open(dir);
});

afterAll(async () => {
  await ledger?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("the MCP server admits a call's arguments once, and the ledger runs them as admitted", () => {
  it("answers arguments the schema refuses from the server's gate, before the ledger is reached", async () => {
    const reached: string[] = [];
    const port: LedgerPort = {
      close: async () => undefined,
      execute: (tool, input, caller, options) => {
        reached.push(tool);
        return ledger.execute(tool, input, caller, options);
      },
    };
    const client = await connectInMemory({
      mode: "stdio",
      caller: { client: "stdio" },
      limiter: new CallLimiter(4),
      resolveProject: async () => ({ ledger: port, root: dir }),
    });
    try {
      const refused = await client.callTool({
        name: "awr_work_ready",
        arguments: { limit: "ten" },
      });
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toMatchObject({
        code: "InvalidInput",
        message: expect.stringContaining("Invalid arguments for awr_work_ready: limit:"),
      });
      expect(reached).toEqual([]);
      const listed = await client.callTool({ name: "awr_work_ready", arguments: { limit: 5 } });
      expect(listed.isError).toBe(false);
      expect(reached).toEqual(["awr_work_ready"]);
    } finally {
      await client.close();
    }
  });

  it("runs admitted arguments on the real ledger without checking them a second time", async () => {
    // What only the gate refuses (an undeclared argument) reaches the operation untouched when
    // handed over as admitted: the ledger behind the server holds no second schema check.
    const admitted = { limit: 5, not_declared: true } as unknown as AdmittedInput;
    const answer = await ledger.execute("awr_work_ready", admitted, { client: "stdio" });
    expect(answer["ok"]).toBe(true);
  });
});
