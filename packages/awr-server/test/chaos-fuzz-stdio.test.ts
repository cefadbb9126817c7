// Chaos: 10,000 seeded fuzz frames (malformed JSON, JSON of every shape, JSON-RPC messages with
// wrong members, truncated and corrupted messages, noise, big and deeply nested values) written
// into a real `awr-mcp --project` over stdio. The server stays up, answers only with well-formed
// JSON-RPC (malformed requests get -32700/-32600/-32601/-32602, or are skipped), still answers a
// real tool call afterwards, and its memory stays bounded.
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fuzzFrames, MALFORMED_INPUT_CODES } from "./fixtures/chaos-frames.js";
import {
  CHAOS_FULL,
  killAllServices,
  makeProject,
  rssBytes,
  type ServiceProcess,
  spawnService,
  type TempProject,
  toolCall,
} from "./fixtures/chaos-service.js";

const FRAMES = CHAOS_FULL ? 100_000 : 10_000;
const RSS_GROWTH_LIMIT = 100 * 1024 * 1024;

interface Answer {
  jsonrpc?: unknown;
  id?: unknown;
  result?: { structuredContent?: Record<string, unknown>; isError?: boolean };
  error?: { code: number; message: string };
}

let project: TempProject;
let service: ServiceProcess;
const answers: Answer[] = [];
const waiting = new Map<unknown, (answer: Answer) => void>();

beforeAll(async () => {
  project = await makeProject();
  service = spawnService(["--project", project.root]);
  const lines = createInterface({ input: service.proc.stdout as NodeJS.ReadableStream });
  lines.on("line", (line) => {
    const answer = JSON.parse(line) as Answer; // stdout carries nothing but JSON-RPC
    answers.push(answer);
    waiting.get(answer.id)?.(answer);
  });
}, 60_000);

afterAll(async () => {
  killAllServices();
  await project?.remove();
});

/** Fails fast, with the server's stderr, if the server dies instead of answering. */
function orDeath<T>(promise: Promise<T>): Promise<T> {
  const death = service.exited.then((code) => {
    throw new Error(`awr-mcp exited (${code}) during the fuzz:\n${service.stderr()}`);
  });
  death.catch(() => undefined); // only the race reports it; the kill in afterAll is expected
  return Promise.race([promise, death]);
}

async function send(frame: string): Promise<void> {
  const stdin = service.proc.stdin as NodeJS.WritableStream;
  if (!stdin.write(`${frame}\n`)) {
    await orDeath(new Promise((resolve) => stdin.once("drain", resolve)));
  }
}

async function request(id: string, frame: string): Promise<Answer> {
  const answered = new Promise<Answer>((resolve) => waiting.set(id, resolve));
  await send(frame);
  return orDeath(answered);
}

async function projectStatus(id: string): Promise<Answer> {
  return request(id, toolCall(id, "awr_project_status", { view: "full" }));
}

describe("awr-mcp over stdio under 10,000 fuzzed frames", () => {
  it("stays up, answers malformed input with JSON-RPC errors or skips it, and keeps serving", async () => {
    await request(
      "init",
      JSON.stringify({
        jsonrpc: "2.0",
        id: "init",
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "chaos", version: "1" },
        },
      }),
    );
    await send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    const before = await projectStatus("warm");
    expect(before.result?.structuredContent?.project_id).toBe(project.projectId);
    const rssBefore = rssBytes(service.pid);

    const frames = fuzzFrames(FRAMES, 20_260_101);
    for (const frame of frames) await send(frame);
    const after = await projectStatus("after-fuzz");
    expect(after.result?.isError).not.toBe(true);
    expect(after.result?.structuredContent?.project_id).toBe(project.projectId);
    expect(service.proc.exitCode).toBeNull();

    // Every line the server wrote is a JSON-RPC response; fuzz got only malformed-input errors
    // (or a result, for the odd frame that happens to be a valid read).
    const ours = new Set(["init", "warm", "after-fuzz"]);
    const fuzzAnswers = answers.filter((a) => !ours.has(a.id as string));
    const unexpected = fuzzAnswers.filter((answer) => !acceptableAnswer(answer));
    expect(unexpected.slice(0, 5)).toEqual([]);
    expect(fuzzAnswers.length).toBeGreaterThan(0);
    expect(fuzzAnswers.length).toBeLessThan(frames.length);

    const growth = rssBytes(service.pid) - rssBefore;
    expect(growth).toBeLessThan(RSS_GROWTH_LIMIT);
  }, 120_000);
});

/**
 * A well-formed answer to a fuzz frame: a result, a malformed-input error, or the SDK's -32603
 * for a built-in method whose params fail its schema (the MCP SDK reports a params validation
 * failure of `initialize` and friends as an internal error; its message is the schema issue
 * list, not a crash).
 */
function acceptableAnswer(answer: Answer): boolean {
  if (answer.jsonrpc !== "2.0") return false;
  if (answer.error === undefined) return answer.result !== undefined;
  if ((MALFORMED_INPUT_CODES as readonly number[]).includes(answer.error.code)) return true;
  return answer.error.code === -32603 && /"code":\s*"invalid_|"path":/.test(answer.error.message);
}
