// Chaos: 10,000 seeded fuzz requests into the shared HTTP service (a real `awr-mcp --registry`
// process): fuzzed JSON-RPC bodies with a valid token, plus fuzzed content types, Accept headers,
// methods, paths and credentials. The service stays up, answers every request with a
// well-formed HTTP status (never 5xx), answers JSON-RPC bodies with JSON-RPC, still serves a
// real tool call afterwards, and its memory stays bounded.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fuzzFrames, MALFORMED_INPUT_CODES } from "./fixtures/chaos-frames.js";
import {
  CHAOS_FULL,
  killAllServices,
  makeProject,
  messagesOf,
  post,
  type RawResponse,
  rssBytes,
  type ServiceProcess,
  startHttpService,
  type TempProject,
  TOKEN,
  toolCall,
} from "./fixtures/chaos-service.js";

const REQUESTS = CHAOS_FULL ? 50_000 : 10_000;
const CONCURRENCY = 16;
/**
 * Memory must stay bounded. A burst of big bodies legitimately grows the heap (V8 sizes it up
 * and gives it back lazily), so the service runs with its old space capped: a leak would crash
 * it long before the end. Then RSS must plateau: the second half of the fuzz may add little.
 */
const HEAP_CAP = ["--max-old-space-size=192"];
const SECOND_HALF_GROWTH_LIMIT = 64 * 1024 * 1024;
const TOTAL_GROWTH_LIMIT = 256 * 1024 * 1024;
/** Statuses a correct service may answer fuzz with: success, or a client error. */
const CLIENT_STATUSES = [200, 202, 400, 401, 403, 404, 405, 406, 413, 415];

let project: TempProject;
let service: ServiceProcess & { url: string };

beforeAll(async () => {
  project = await makeProject();
  service = await startHttpService(project, HEAP_CAP);
}, 60_000);

afterAll(async () => {
  killAllServices();
  await project?.remove();
});

/** The headers and target of fuzz request i: mostly a proper client, sometimes not. */
function variant(
  i: number,
  url: string,
): { url: string; method: string; headers: Record<string, string> } {
  switch (i % 20) {
    case 0:
      return { url, method: "POST", headers: { authorization: "Bearer wrong-token" } };
    case 1:
      return { url, method: "POST", headers: { authorization: "" } };
    case 2:
      return { url, method: "POST", headers: { "content-type": "text/plain" } };
    case 3:
      return { url, method: "POST", headers: { accept: "text/html" } };
    case 4:
      return { url: url.replace(/\/mcp$/, "/nope"), method: "POST", headers: {} };
    case 5:
      return { url, method: ["GET", "PUT", "DELETE", "PATCH"][i % 4] as string, headers: {} };
    case 6:
      return { url, method: "POST", headers: { origin: "https://evil.example" } };
    default:
      return { url, method: "POST", headers: {} };
  }
}

async function fuzzOne(i: number, frame: string): Promise<RawResponse> {
  const target = variant(i, service.url);
  if (target.method === "POST") return post(target.url, frame, target.headers);
  const response = await fetch(target.url, {
    method: target.method,
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  return { status: response.status, contentType: "", text: await response.text() };
}

describe("the shared HTTP service under 10,000 fuzzed requests", () => {
  it("stays up, answers every request with a client status or JSON-RPC, and keeps serving", async () => {
    const warm = await post(
      service.url,
      toolCall(1, "awr_project_status", { project: "chaos", view: "full" }),
    );
    expect(warm.status).toBe(200);
    const rssBefore = rssBytes(service.pid);

    const frames = fuzzFrames(REQUESTS, 20_260_202);
    const statuses = new Map<number, number>();
    const unexpected: string[] = [];
    let next = 0;
    const runUntil = (end: number) =>
      Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < end) {
            const i = next++;
            const frame = frames[i] as string;
            const response = await fuzzOne(i, frame);
            statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
            if (!CLIENT_STATUSES.includes(response.status)) {
              unexpected.push(
                `${response.status} for ${frame.slice(0, 80)}: ${response.text.slice(0, 200)}`,
              );
            } else if (response.status === 200 && !wellFormedJsonRpc(response)) {
              unexpected.push(
                `malformed answer for ${frame.slice(0, 80)}: ${response.text.slice(0, 200)}`,
              );
            }
          }
        }),
      );
    await runUntil(frames.length / 2);
    const rssMiddle = rssBytes(service.pid);
    await runUntil(frames.length);
    const rssEnd = rssBytes(service.pid);
    expect(unexpected.slice(0, 5)).toEqual([]);
    expect(statuses.get(401)).toBeGreaterThan(0);

    const after = await post(
      service.url,
      toolCall(2, "awr_project_status", { project: "chaos", view: "full" }),
    );
    expect(after.status).toBe(200);
    const [message] = messagesOf(after) as {
      result?: { structuredContent?: { project_id?: string } };
    }[];
    expect(message?.result?.structuredContent?.project_id).toBe(project.projectId);
    expect(service.proc.exitCode).toBeNull();
    expect(rssEnd - rssMiddle).toBeLessThan(SECOND_HALF_GROWTH_LIMIT);
    expect(rssEnd - rssBefore).toBeLessThan(TOTAL_GROWTH_LIMIT);
  }, 180_000);
});

/** Every message of a 200 answer is a JSON-RPC response: a result or a malformed-input error. */
function wellFormedJsonRpc(response: RawResponse): boolean {
  let messages: unknown[];
  try {
    messages = messagesOf(response);
  } catch {
    return false;
  }
  return messages.every((value) => {
    const m = value as {
      jsonrpc?: unknown;
      result?: unknown;
      error?: { code?: number; message?: string };
    };
    if (m.jsonrpc !== "2.0") return false;
    if (m.error === undefined) return m.result !== undefined;
    const code = m.error.code ?? 0;
    if ((MALFORMED_INPUT_CODES as readonly number[]).includes(code)) return true;
    return code === -32603 && /"code":\s*"invalid_|"path":/.test(m.error.message ?? "");
  });
}
