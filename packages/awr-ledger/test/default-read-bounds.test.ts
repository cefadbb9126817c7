import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  countTokens,
  initProject,
  isLedgerError,
  openLedger,
  type ToolName,
} from "@awr/awr-ledger";
import { generateFixtureProject } from "@awr/ledger-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Every read a host makes with its default arguments answers within 2,000 o200k tokens, on a
// 10,000-item project too: the answers are bounded by their own limits (queues, pages, lists),
// never by the project's size. Context packets (awr_context_compile, and the packet every view of
// awr_work_prepare carries, since the views keep the required context) are bounded by their
// `budget` argument instead, whose default is the original's 5,000 tokens.
const DEFAULT_READ_TOKENS = 2000;
const caller = { client: "stdio" };

let dir: string;
let ledger: Awaited<ReturnType<typeof openLedger>>;
let work: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "awr-default-reads-"));
  const fixture = generateFixtureProject(join(dir, "project"), { items: 10_000, seed: 3 });
  await initProject({ root: fixture.root, manifest: fixture.manifest_path, accept: true });
  ledger = await openLedger({ root: fixture.root });
  work = (fixture.items.find((i) => i.status === "ready") ?? fixture.items[0])?.work as string;
}, 180_000);
afterAll(async () => {
  await ledger?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The answer's tokens, or the error's (a refusal is an answer a host reads too). */
async function tokensOf(tool: ToolName, args: Record<string, unknown>): Promise<number> {
  try {
    return countTokens(JSON.stringify(await ledger.call(tool, args, caller)));
  } catch (error) {
    if (!isLedgerError(error)) throw error;
    return countTokens(JSON.stringify(error.result ?? error.toJSON()));
  }
}

describe("default reads on a 10,000-item project", () => {
  const reads: [ToolName, () => Record<string, unknown>][] = [
    ["awr_project_status", () => ({})],
    ["awr_work_ready", () => ({})],
    ["awr_work_get", () => ({ work })],
    ["awr_search", () => ({ text: "payments" })],
    ["awr_session_list", () => ({})],
    ["awr_work_graph", () => ({})],
    ["awr_work_graph", () => ({ roots: [work] })],
    ["awr_work_assess", () => ({ work })],
  ];
  it.each(reads)(`%s answers within ${DEFAULT_READ_TOKENS} tokens`, async (tool, args) => {
    const tokens = await tokensOf(tool, args());
    expect(tokens, `${tool} ${JSON.stringify(args())}`).toBeLessThanOrEqual(DEFAULT_READ_TOKENS);
  });
});
