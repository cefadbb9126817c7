import type { ServerResponse } from "node:http";
import { LIMITS } from "@awr/awr-ledger/catalog";
import type { InspectorBackend } from "./routes.js";

/**
 * /api/live (ours): a Server-Sent Events stream that sends one message when it opens and one
 * whenever the project revision changes, with what the agents are doing: their sessions, the
 * checkpoints they last wrote and the waits open on the project. The revision is all that is
 * polled (one small read every LIMITS.inspector.livePollMs, only while a stream is open), so a
 * write by any process, an agent's MCP server or another `awr`, reaches the page within a poll
 * or two; the summary is read once per change, for every stream at once.
 */

export interface LiveBackend extends InspectorBackend {
  /** The revision as stored, without refreshing the sources. */
  revision(): Promise<number>;
}

const BOUNDS = LIMITS.inspector;

type Row = Record<string, unknown>;

function errorOf(error: unknown): { code: string; message: string } {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return {
    code: typeof code === "string" ? code : "Internal",
    message: typeof message === "string" ? message : String(error),
  };
}

/** One live message: each part is the ledger's answer, or the error it gave instead. */
export async function liveSummary(backend: LiveBackend): Promise<Row> {
  let sessions: Row;
  let checkpoints: Row;
  try {
    const listed = await backend.call("awr_session_list", { limit: BOUNDS.liveSessions });
    const rows = (listed["sessions"] as Row[] | undefined) ?? [];
    const active = rows.filter((s) => s["status"] === "active");
    sessions = {
      shown: rows.length,
      active: active.length,
      more: listed["next_before_revision"] !== null,
      items: active.map((s) => ({
        id: s["id"],
        agent_id: s["agent_id"],
        status: s["status"],
        work: s["work"],
        last_checkpoint_id: s["last_checkpoint_id"],
        started_at: s["started_at"],
      })),
    };
    const withCheckpoint = rows.filter((s) => s["last_checkpoint_id"] != null);
    checkpoints = {
      sessions_with_checkpoint: withCheckpoint.length,
      latest: withCheckpoint.map((s) => ({
        session: s["id"],
        agent_id: s["agent_id"],
        status: s["status"],
        last_checkpoint_id: s["last_checkpoint_id"],
      })),
    };
  } catch (error) {
    sessions = { error: errorOf(error) };
    checkpoints = { error: errorOf(error) };
  }
  let waits: Row;
  try {
    const status = await backend.call("awr_project_status", { view: "action" });
    const pending = status["pending_operations"] as Row | undefined;
    waits = {
      waiting_count: status["waiting_count"],
      pending_operations: pending?.["total"] ?? null,
      items: pending?.["items"] ?? [],
    };
  } catch (error) {
    waits = { error: errorOf(error) };
  }
  // Read last: a read above may have indexed changed sources, which moves the revision.
  return { project_revision: await backend.revision(), sessions, checkpoints, waits };
}

export class LiveFeed {
  readonly #backend: LiveBackend;
  readonly #clients = new Set<ServerResponse>();
  #poll: NodeJS.Timeout | undefined;
  #keepAlive: NodeJS.Timeout | undefined;
  #seen: number | undefined;
  #message: string | undefined;
  #ticking: Promise<void> | undefined;
  #forceNext = false;
  #closed = false;

  constructor(backend: LiveBackend) {
    this.#backend = backend;
  }

  get size(): number {
    return this.#clients.size;
  }

  /** Opens a stream on `res`; false (nothing written) when LIMITS.inspector.liveClients are open. */
  open(res: ServerResponse): boolean {
    if (this.#closed || this.#clients.size >= BOUNDS.liveClients) return false;
    res.writeHead(200, {
      "Content-Type": "text/event-stream; charset=utf-8",
      Connection: "keep-alive",
    });
    res.write(`retry: 2000\n\n`);
    this.#clients.add(res);
    res.on("close", () => {
      this.#clients.delete(res);
      if (this.#clients.size === 0) this.#stopTimers();
    });
    if (this.#message !== undefined) res.write(this.#message);
    else void this.#tick(true);
    this.#startTimers();
    return true;
  }

  /** Ends every stream and stops polling. */
  close(): void {
    this.#closed = true;
    this.#stopTimers();
    for (const res of this.#clients) res.end();
    this.#clients.clear();
  }

  #startTimers(): void {
    if (this.#poll !== undefined) return;
    this.#poll = setInterval(() => void this.#tick(false), BOUNDS.livePollMs);
    this.#keepAlive = setInterval(() => this.#send(": keep-alive\n\n"), BOUNDS.liveKeepAliveMs);
  }

  #stopTimers(): void {
    clearInterval(this.#poll);
    clearInterval(this.#keepAlive);
    this.#poll = undefined;
    this.#keepAlive = undefined;
    // A stream opened later reads afresh: nothing was watched in between.
    this.#seen = undefined;
    this.#message = undefined;
  }

  #send(text: string): void {
    for (const res of this.#clients) res.write(text);
  }

  /** One poll; `force` sends the summary even when the revision is the one last sent. */
  #tick(force: boolean): Promise<void> {
    if (this.#ticking !== undefined) {
      // A stream that opened during a poll still gets its first message, right after it.
      if (force) this.#forceNext = true;
      return this.#ticking;
    }
    this.#ticking = (async () => {
      try {
        const revision = await this.#backend.revision();
        if (!force && revision === this.#seen) return;
        const summary = await liveSummary(this.#backend);
        if (this.#closed) return;
        this.#seen = summary["project_revision"] as number;
        this.#message = `data: ${JSON.stringify(summary)}\n\n`;
        this.#send(this.#message);
      } catch (error) {
        // The ledger closing under a poll at shutdown, or a database error: say so, keep going.
        if (!this.#closed) {
          this.#send(`event: error\ndata: ${JSON.stringify({ error: errorOf(error) })}\n\n`);
        }
      } finally {
        this.#ticking = undefined;
        if (this.#forceNext && !this.#closed) {
          this.#forceNext = false;
          void this.#tick(true);
        }
      }
    })();
    return this.#ticking;
  }
}
