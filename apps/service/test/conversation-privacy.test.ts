import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeProject, tempDir, writeRegistry } from "./support/projects.js";
import {
  httpClient,
  killAll,
  ok,
  type RunningService,
  startHttpService,
} from "./support/service-process.js";
import { TEST_STORAGES } from "./support/test-storage.js";

/**
 * The per-client privacy rule over the real service (docs/design/conversation-privacy.md): two
 * writers and a reader on two projects. Each writer leaves conversation content in its sessions;
 * every read tool of every other client, searched for those strings, finds none, and every call
 * given another client's session, wait or checkpoint is RuleViolation.
 */

const CLIENTS = { wa: "a".repeat(40), wb: "b".repeat(40), rd: "c".repeat(40) } as const;
type ClientId = keyof typeof CLIENTS;
const WRITERS = ["wa", "wb"] as const;
const PROJECTS = ["alpha", "beta"] as const;
const WORK: Record<(typeof WRITERS)[number], string> = { wa: "W-1", wb: "W-2" };
const FIELDS = ["conv", "digest", "next", "loop", "question", "waitdigest", "reply", "pending"];

/** The text a writer leaves in its session on a project; every string starts with `tag`. */
const tag = (writer: string, project: string) => `qq${writer}${project}`;

interface Written {
  session: string;
  checkpoint: string;
  pendingWait: string;
  requestId: string;
}

let requests = 0;
const requestId = () => `privacy-${++requests}`;

/** A tool's whole answer (success or error) as one string, to search for secrets in. */
async function answer(c: Client, name: string, args: Record<string, unknown>) {
  const result = await c.callTool({ name, arguments: args });
  return {
    isError: result.isError === true,
    content: (result.structuredContent ?? {}) as Record<string, unknown>,
    text: JSON.stringify(result),
  };
}

async function revision(c: Client, project: string): Promise<number> {
  return (await ok(c, "awr_project_status", { project, view: "summary" }))[
    "project_revision"
  ] as number;
}

async function write(c: Client, name: string, args: Record<string, unknown>) {
  const project = args["project"] as string;
  return ok(c, name, {
    ...args,
    expected_revision: await revision(c, project),
    request_id: requestId(),
  });
}

/** A writer's session with a checkpoint, an answered wait and a pending one. */
async function leaveSecrets(c: Client, project: string, writer: "wa" | "wb"): Promise<Written> {
  const t = tag(writer, project);
  const startRequest = requestId();
  const started = await ok(c, "awr_session_start", {
    project,
    work: WORK[writer],
    conversation: `${t}conv`,
    agent: "agent",
    provider: "prov",
    model: "model",
    claim: true,
    expected_revision: await revision(c, project),
    request_id: startRequest,
  });
  const session = (started["session"] as { id: string }).id;
  const saved = await write(c, "awr_session_checkpoint", {
    project,
    session,
    context_hash: "sha256:ctx",
    digest: `${t}digest`,
    next_action: `${t}next`,
    open_loops: [`${t}loop`],
  });
  const wait = (question: string, digest: string) =>
    write(c, "awr_session_wait", {
      project,
      session,
      question,
      context_hash: "sha256:ctx",
      digest,
      next_action: `${t}next`,
    });
  const first = await wait(`${t}question`, `${t}waitdigest`);
  await write(c, "awr_session_reply", {
    project,
    wait: (first["wait"] as { id: string }).id,
    reply: `${t}reply`,
  });
  const pending = await wait(`${t}pending`, `${t}waitdigest`);
  return {
    session,
    checkpoint: (saved["checkpoint"] as { id: string }).id,
    pendingWait: (pending["wait"] as { id: string }).id,
    requestId: startRequest,
  };
}

/** Every read tool, once each, as a reader of `project` would call them. */
function readCalls(project: string, secrets: string[]): [string, Record<string, unknown>][] {
  return [
    ["awr_project_status", { project, view: "full" }],
    ["awr_project_status", { project, work: ["W-1", "W-2"], view: "full" }],
    ["awr_work_ready", { project }],
    ["awr_work_get", { project, work: "W-1" }],
    ["awr_work_get", { project, work: "W-2" }],
    ["awr_context_compile", { project, work: "W-1", detached: true, budget: 50_000 }],
    ["awr_context_compile", { project, work: "W-2", detached: true, budget: 50_000 }],
    ["awr_search", { project, kind: "event", limit: 100 }],
    ["awr_search", { project, work: "W-1", limit: 100 }],
    ["awr_session_list", { project }],
    ...secrets.map((text): [string, Record<string, unknown>] => [
      "awr_search",
      { project, text, limit: 100 },
    ]),
  ];
}

/** Every call that takes a session, wait or checkpoint id, given another client's. */
function foreignIdCalls(
  project: string,
  w: Written,
  current: number,
): [string, Record<string, unknown>][] {
  const writeArgs = { project, expected_revision: current, request_id: requestId() };
  const session = w.session;
  return [
    ["awr_session_get", { project, session }],
    ["awr_context_compile", { project, session }],
    ["awr_context_compile", { project, work: "W-1", detached: true, checkpoint: w.checkpoint }],
    [
      "awr_session_checkpoint",
      { ...writeArgs, session, context_hash: "h", digest: "d", next_action: "n" },
    ],
    [
      "awr_session_wait",
      { ...writeArgs, session, question: "q", context_hash: "h", digest: "d", next_action: "n" },
    ],
    ["awr_session_reply", { ...writeArgs, wait: w.pendingWait, reply: "r" }],
    ["awr_session_claim", { ...writeArgs, session, action: "acquire" }],
    ["awr_session_end", { ...writeArgs, session, outcome: "ended" }],
    [
      "awr_session_resume",
      { ...writeArgs, session, conversation: "c", agent: "a", provider: "p", model: "m" },
    ],
    ["awr_event_append", { ...writeArgs, session, event_type: "note.added", summary: "s" }],
    [
      "awr_work_transition",
      { ...writeArgs, work: "W-1", action: "progress", reason: "r", session },
    ],
  ];
}

const manifest = (storageTable: string) => `[project]
name = "privacy"
authority_mode = "source_first"

${storageTable}
[[sources]]
domain = "work"
role = "primary"
path = "work-ledger.yaml"
adapter = "yaml-ledger-v1"
`;

describe.each(TEST_STORAGES)("conversation privacy over HTTP on $name", (storage) => {
  const schemas = PROJECTS.map((p) => `awr_privacy_${p}_${process.pid}_${Date.now().toString(36)}`);
  const { env } = storage;
  let cleanup: () => Promise<void> = async () => undefined;
  let service: RunningService | undefined;
  const clients = {} as Record<ClientId, Client>;
  const written = {} as Record<string, Written>;

  beforeAll(async () => {
    const temp = await tempDir(`awr-privacy-${storage.name}-`);
    cleanup = temp.cleanup;
    const projects = [];
    for (const [i, key] of PROJECTS.entries()) {
      const options = {
        env: { ...process.env, ...env },
        manifest: manifest(storage.storageTable(schemas[i] as string)),
      };
      projects.push({ key, ...(await makeProject(temp.dir, key, options)) });
    }
    const registry = await writeRegistry(temp.dir, projects, [
      { id: "wa", token: CLIENTS.wa, write: [...PROJECTS] },
      { id: "wb", token: CLIENTS.wb, write: [...PROJECTS] },
      { id: "rd", token: CLIENTS.rd, read: [...PROJECTS] },
    ]);
    service = await startHttpService(registry.file, { ...registry.env, ...env });
    for (const id of Object.keys(CLIENTS) as ClientId[]) {
      clients[id] = await httpClient(service.url, CLIENTS[id]);
    }
    for (const project of PROJECTS) {
      for (const writer of WRITERS) {
        written[`${writer}:${project}`] = await leaveSecrets(clients[writer], project, writer);
      }
    }
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled(Object.values(clients).map((c) => c.close()));
    await service?.stop();
    killAll();
    await cleanup();
    await storage.drop(schemas);
  });

  it("a writer reads its own conversation content back (the matrix can fail)", async () => {
    for (const project of PROJECTS) {
      const t = tag("wa", project);
      const found = await ok(clients.wa, "awr_search", { project, text: `${t}question` });
      expect((found["hits"] as unknown[]).length).toBeGreaterThan(0);
      const own = await answer(clients.wa, "awr_context_compile", {
        project,
        session: written[`wa:${project}`]?.session,
        budget: 50_000,
      });
      expect(own.text).toContain(`${t}waitdigest`);
      expect(own.text).toContain(`${t}pending`);
    }
  });

  it("no read tool of another client shows a writer's conversation content", async () => {
    const leaks: string[] = [];
    for (const project of PROJECTS) {
      for (const writer of WRITERS) {
        const t = tag(writer, project);
        const secrets = FIELDS.map((f) => `${t}${f}`);
        for (const reader of ["wa", "wb", "rd"] as const) {
          if (reader === writer) continue;
          for (const [tool, args] of readCalls(project, secrets)) {
            const seen = await answer(clients[reader], tool, args);
            // A search answers with its query, so only its hits are looked at; it finds none.
            const searched = args["text"] !== undefined;
            const shown = searched ? JSON.stringify(seen.content["hits"] ?? null) : seen.text;
            if (shown.includes(t) || (searched && shown !== "[]")) {
              leaks.push(`${reader} ${tool} ${JSON.stringify(args)}: ${shown.slice(0, 300)}`);
            }
          }
        }
      }
    }
    expect(leaks).toEqual([]);
  });

  it("no read tool of another client shows a writer's session id, while the writer sees its own", async () => {
    const leaks: string[] = [];
    for (const project of PROJECTS) {
      for (const writer of WRITERS) {
        const { session } = written[`${writer}:${project}`] as Written;
        // The writer's own reads name its session (its claim, its work.claimed event).
        const own = await answer(clients[writer], "awr_work_get", { project, work: WORK[writer] });
        expect(own.text).toContain(session);
        const found = await answer(clients[writer], "awr_search", { project, text: "claimed" });
        expect(JSON.stringify(found.content["hits"])).toContain(session);
        for (const reader of ["wa", "wb", "rd"] as const) {
          if (reader === writer) continue;
          const calls = [
            ...readCalls(project, []),
            ["awr_search", { project, text: "claimed", limit: 100 }] as const,
            ["awr_search", { project, text: "session", limit: 100 }] as const,
          ];
          for (const [tool, args] of calls) {
            const seen = await answer(clients[reader], tool, args);
            if (seen.text.includes(session)) {
              const at = seen.text.indexOf(session);
              leaks.push(
                `${reader} ${tool} ${JSON.stringify(args)}: …${seen.text.slice(at - 120, at + 40)}`,
              );
            }
          }
        }
      }
    }
    expect(leaks).toEqual([]);
  });

  it("every call given another client's session, wait or checkpoint is RuleViolation", async () => {
    for (const project of PROJECTS) {
      const before = await revision(clients.rd, project);
      for (const owner of WRITERS) {
        const ids = written[`${owner}:${project}`] as Written;
        for (const caller of ["wa", "wb", "rd"] as const) {
          if (caller === owner) continue;
          for (const [tool, args] of foreignIdCalls(project, ids, before)) {
            const refused = await answer(clients[caller], tool, args);
            expect([caller, tool, refused.isError, refused.content["code"]]).toEqual([
              caller,
              tool,
              true,
              "RuleViolation",
            ]);
            expect(refused.text).not.toContain(tag(owner, project));
          }
          // Another client's request is not in the caller's journal.
          const request = await answer(clients[caller], "awr_operation_get", {
            project,
            request_id: ids.requestId,
          });
          expect(request.content["code"]).toBe("NotFound");
        }
      }
      expect(await revision(clients.rd, project)).toBe(before);
    }
  });

  it("a session of one project is unknown in the other, even to its own client", async () => {
    const alpha = written["wa:alpha"] as Written;
    const other = await answer(clients.wa, "awr_session_get", {
      project: "beta",
      session: alpha.session,
    });
    expect(other.content["code"]).toBe("NotFound");
  });
});
