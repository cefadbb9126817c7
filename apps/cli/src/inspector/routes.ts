import { LIMITS, type ToolName } from "@awr/awr-ledger/catalog";
import type { CallOptions, OperationInput, OperationResult } from "../backend/backend.js";

/**
 * The inspector's JSON API: the original inspector's routes, query parameters and answer
 * envelope (`{ok: true, command, data}` or `{ok: false, command?, error: {code, message}}`), plus
 * our /api/overview and /api/graph. Where the original ran one `awr` process per request, each
 * route here is one call of the ledger's own operation, in process, so every number on the board
 * is the ledger's answer; `command` is the `awr` command line that gives the same answer in a
 * terminal.
 */

/** What the routes read through: the project's ledger as the local CLI opens it. */
export interface InspectorBackend {
  call(tool: ToolName, input: OperationInput, options?: CallOptions): Promise<OperationResult>;
  currentRevision(options?: CallOptions & { refresh?: boolean }): Promise<number>;
}

export interface RouteSettings {
  backend: InspectorBackend;
  /** The project root shown in `command` and /api/health. */
  project: string;
  mode: "live" | "demo";
  allowReindex: boolean;
  version: string;
}

export interface ApiAnswer {
  status: number;
  body: Record<string, unknown>;
}

export type Route = (url: URL, body: Record<string, unknown> | undefined) => Promise<ApiAnswer>;

const BOUNDS = LIMITS.inspector;

/** A request the route cannot run as asked: 400, nothing was read. */
class BadRequest extends Error {}

function badRequest(message: string): ApiAnswer {
  return { status: 400, body: { ok: false, error: { code: "BadRequest", message } } };
}

/** A whole number parameter within bounds; its default when absent. */
function integerParam(
  url: URL,
  name: string,
  bounds: { min: number; max: number },
  fallback?: number,
): number | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === "") return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < bounds.min) {
    throw new BadRequest(`${name} must be a whole number from ${bounds.min} to ${bounds.max}`);
  }
  if (value > bounds.max) {
    throw new BadRequest(`${name} must be a whole number from ${bounds.min} to ${bounds.max}`);
  }
  return value;
}

/** Free text without control characters, 1..max characters; undefined when absent. */
function textValue(value: unknown, name: string, max: number): string | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string") throw new BadRequest(`${name} must be text`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if (value.length > max || /[\u0000-\u001f\u007f]/.test(value)) {
    throw new BadRequest(`${name} must be 1..${max} characters without control characters`);
  }
  return value;
}

/** A key (work, goal, branch): the ledger checks its form; here only its size and characters. */
function keyValue(value: unknown, name: string): string | undefined {
  const key = textValue(value, name, LIMITS.idBytes);
  if (key !== undefined && /\s/.test(key)) throw new BadRequest(`${name} must not contain spaces`);
  return key;
}

/** A word as a shell shows it: quoted when it holds anything but plain characters. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@.:#/=,+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The JSON form of a refusal from the ledger (or anything else that failed). */
function failure(error: unknown, command: string): ApiAnswer {
  const { code, message, details, result } = error as {
    code?: unknown;
    message?: unknown;
    details?: unknown;
    result?: unknown;
  };
  if (typeof code !== "string" || typeof message !== "string") {
    return {
      status: 500,
      body: {
        ok: false,
        command,
        error: { code: "Internal", message: String((error as Error)?.message ?? error) },
      },
    };
  }
  return {
    status: 200,
    body: {
      ok: false,
      command,
      error: { code, message, ...(details === undefined ? {} : { details }) },
      // A refusal that carries a report (an incomplete context packet) keeps it for the page.
      ...(result === undefined ? {} : { data: result }),
    },
  };
}

export function apiRoutes(settings: RouteSettings): Map<string, Route> {
  const { backend } = settings;

  const commandLine = (words: readonly string[]) =>
    ["awr", "--project", settings.project, "--json", ...words].map(shellWord).join(" ");

  /** One ledger call as one answer. */
  const run = async (
    words: readonly string[],
    tool: ToolName,
    input: OperationInput,
    options: CallOptions = {},
  ): Promise<ApiAnswer> => {
    const command = commandLine(words);
    try {
      const data = await backend.call(tool, input, options);
      return { status: 200, body: { ok: true, command, data } };
    } catch (error) {
      return failure(error, command);
    }
  };

  const page = BOUNDS.page;
  const routes: Record<string, Route> = {
    "GET /api/health": async () => ({
      status: 200,
      body: {
        ok: true,
        data: {
          mode: settings.mode,
          awrVersion: settings.version,
          project: settings.project,
          reason: settings.mode === "demo" ? "Started with --demo" : null,
          allowReindex: settings.allowReindex,
        },
      },
    }),

    "GET /api/status": async (url) => {
      const view = url.searchParams.get("view");
      if (view === "full" || view === "summary") {
        return run(["status", "--view", view], "awr_project_status", { view });
      }
      return run(["status"], "awr_project_status", { view: "action" });
    },

    // Ours: the board's headline (the four queue counts and the revision), from the action view.
    "GET /api/overview": async () => {
      const answer = await run(["status"], "awr_project_status", { view: "action" });
      const data = answer.body["data"] as Record<string, unknown> | undefined;
      if (answer.body["ok"] !== true || data === undefined) return answer;
      const fields = [
        "project",
        "project_id",
        "project_revision",
        "branch_id",
        "total",
        "project_work_total",
        "current_total",
        "ready_count",
        "waiting_count",
        "blocked_count",
        "next_action",
      ];
      const overview = Object.fromEntries(
        fields.filter((f) => data[f] !== undefined).map((f) => [f, data[f]]),
      );
      return { status: 200, body: { ...answer.body, data: overview } };
    },

    "GET /api/work-page": async (url) => {
      const queue = url.searchParams.get("queue") ?? "ready";
      if (!["current", "ready", "waiting", "blocked"].includes(queue)) {
        throw new BadRequest("queue must be one of current, ready, waiting, blocked");
      }
      const offset = integerParam(url, "offset", { min: 0, max: LIMITS.statusPage.offsetMax }, 0);
      const limit = integerParam(url, "limit", page, page.default) as number;
      return run(
        ["status", "--queue", queue, "--offset", String(offset), "--page-size", String(limit)],
        "awr_project_status",
        { view: "action" },
        { statusQueue: queue, statusOffset: offset as number, statusPageSize: limit },
      );
    },

    "GET /api/ready": async (url) => {
      const limit = integerParam(url, "limit", page);
      return run(
        ["ready", ...(limit === undefined ? [] : ["--limit", String(limit)])],
        "awr_work_ready",
        limit === undefined ? {} : { limit },
      );
    },

    "GET /api/work": async (url) => {
      const key = keyValue(url.searchParams.get("key"), "key");
      if (key === undefined) throw new BadRequest("a key parameter is required");
      return run(["work", "show", key], "awr_work_get", { work: key });
    },

    "GET /api/search": async (url) => {
      const text = textValue(url.searchParams.get("text"), "text", BOUNDS.searchChars);
      if (text === undefined) throw new BadRequest("a text parameter is required");
      const limit = integerParam(url, "limit", page);
      return run(
        ["search", ...(limit === undefined ? [] : ["--limit", String(limit)]), "--", text],
        "awr_search",
        { text, ...(limit === undefined ? {} : { limit }) },
      );
    },

    // The original read `awr intake inspect`'s sources; ours are `awr source list`'s.
    "GET /api/sources": async () => run(["source", "list"], "awr_source_list", {}),

    "GET /api/sessions": async (url) => {
      const limit = integerParam(url, "limit", page, BOUNDS.listDefault) as number;
      return run(["session", "list", "--limit", String(limit)], "awr_session_list", { limit });
    },

    "GET /api/events": async (url) => {
      const limit = integerParam(url, "limit", page, BOUNDS.listDefault) as number;
      return run(["event", "history", "--limit", String(limit)], "awr_event_history", { limit });
    },

    "GET /api/mainline-nav": async () => ({
      status: 200,
      body: {
        ok: false,
        error: {
          code: "Unsupported",
          message:
            "this ledger has no mainline navigation; use /api/graph for the dependency graph",
        },
      },
    }),

    // Ours: awr_work_graph around `root` (repeatable), or the whole project.
    "GET /api/graph": async (url) => {
      const roots = url.searchParams.getAll("root").map((r) => keyValue(r, "root"));
      const given = roots.filter((r): r is string => r !== undefined);
      if (given.length > LIMITS.graphRoots) {
        throw new BadRequest(`at most ${LIMITS.graphRoots} root parameters`);
      }
      const limit = integerParam(url, "limit", LIMITS.graphLimit);
      return run(
        [
          "work",
          "graph",
          ...given.flatMap((r) => ["--root", r]),
          ...(limit === undefined ? [] : ["--limit", String(limit)]),
        ],
        "awr_work_graph",
        {
          ...(given.length === 0 ? {} : { roots: given }),
          ...(limit === undefined ? {} : { limit }),
        },
      );
    },

    "POST /api/context/compile": async (_url, body = {}) => {
      const work = keyValue(body["work"], "work");
      if (work === undefined) throw new BadRequest("a work key is required");
      const goal = keyValue(body["goal"], "goal");
      const branch = keyValue(body["branch"], "branch");
      const intent = textValue(body["intent"], "intent", BOUNDS.intentChars);
      let budget: number | undefined;
      if (body["budget"] !== undefined && body["budget"] !== null && body["budget"] !== "") {
        budget = Number(body["budget"]);
        const { min, max } = LIMITS.budget;
        if (!Number.isInteger(budget) || budget < min || budget > max) {
          throw new BadRequest(`budget must be a whole number from ${min} to ${max}`);
        }
      }
      const words = ["context", "compile", "--work", work];
      if (goal !== undefined) words.push("--goal", goal);
      if (budget !== undefined) words.push("--budget", String(budget));
      if (branch !== undefined) words.push("--branch", branch);
      if (intent !== undefined) words.push("--intent", intent);
      return run(
        words,
        "awr_context_compile",
        {
          work,
          detached: true,
          ...(goal === undefined ? {} : { goals: [goal] }),
          ...(budget === undefined ? {} : { budget }),
          ...(intent === undefined ? {} : { intent }),
        },
        branch === undefined ? {} : { contextBranch: branch },
      );
    },

    "POST /api/source/reindex": async () => {
      if (!settings.allowReindex) {
        return {
          status: 200,
          body: {
            ok: false,
            error: {
              code: "ReindexNotAllowed",
              message: "reindexing is off; restart the inspector with --allow-reindex to allow it",
            },
          },
        };
      }
      const command = commandLine(["source", "reindex"]);
      try {
        // As `awr source reindex` does: checked against the revision as stored, not refreshed.
        const expected = await backend.currentRevision({ refresh: false });
        const data = await backend.call("awr_source_reindex", { expected_revision: expected });
        return { status: 200, body: { ok: true, command, data } };
      } catch (error) {
        return failure(error, command);
      }
    },
  };

  const guarded = new Map<string, Route>();
  for (const [key, route] of Object.entries(routes)) {
    guarded.set(key, async (url, body) => {
      try {
        return await route(url, body);
      } catch (error) {
        if (error instanceof BadRequest) return badRequest(error.message);
        throw error;
      }
    });
  }
  return guarded;
}
