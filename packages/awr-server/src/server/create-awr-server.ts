import { isLedgerError, LIMITS } from "@awr/awr-ledger";
import {
  type AdmittedInput,
  type ArgumentsProblem,
  admitArguments,
  argumentsProblem,
  describeArgumentsProblem,
  PROTO_KEY_ALIAS,
  toolExposureFrom,
} from "@awr/awr-ledger/catalog";
import { JsonRpcErrorCode } from "@awr/jsonrpc-core";
import { z } from "zod";
import { PACKAGE_VERSION } from "../package-version.js";
import {
  AjvJsonSchemaValidator,
  type CallToolRequest,
  type CallToolResult,
  ListToolsRequestSchema,
  McpError,
  Server,
} from "../sdk/mcp-sdk.js";
import { toolErrorPayload, toolFailure, toolSuccess } from "../tool-result.js";
import { readDomainCall } from "./domain-call.js";
import type { ToolHost } from "./tool-host.js";
import { type ToolSetEntry, toolSet } from "./tool-set.js";

/** Tool arguments larger than this (as JSON, in UTF-8 bytes) are refused with InvalidInput. */
export const MAX_ARGUMENT_BYTES = LIMITS.argumentsBytes;
/** JSON-RPC error code of a call refused because too many are in flight. */
export const BUSY_ERROR_CODE = -32010;

/**
 * The name the server reports in `initialize`, which hosts may show or match
 * (docs/compatibility/mcp-protocol.md).
 */
export const SERVER_NAME = "awr-mcp";
/** The version the server reports in `initialize` (this package's, from its package.json). */
export const SERVER_VERSION = PACKAGE_VERSION;

const INSTRUCTIONS = {
  http: "AWR work ledger. Call awr_projects_list first; every project tool then needs `project` (a key from that list), and every write needs expected_revision and a stable request_id. Tools are grouped in domains: call one (e.g. awr_query) with only project for its child tools, then with project, child_tool and arguments. Start with awr_project_status, then awr_work_prepare.",
  stdio:
    "AWR work ledger for one project. Tools are grouped in domains: call one (e.g. awr_query) with no arguments for its child tools, then with child_tool and arguments. Start with awr_project_status, then awr_work_prepare; every write needs expected_revision (request_id is optional but makes retries safe).",
} as const;

/**
 * tools/call as the protocol layer routes it. The SDK's Server checks the params of tools/call
 * itself (no params, a name that is not a string, arguments that are not an object: -32602)
 * before the handler runs; a full schema here would fail earlier, as -32603.
 */
const ToolsCall = z.looseObject({ method: z.literal("tools/call") });

/** One JSON Schema validator for every server instance (AWR asks clients for no schema input). */
let sharedValidator: AjvJsonSchemaValidator | undefined;

/**
 * Builds an MCP server exposing the AWR tools for one ToolHost. The tool set (schemas,
 * descriptions, annotations, the tools/list answer) comes from the operation catalog and is
 * built once per process, so a server per HTTP request costs little more than its handlers.
 * tools/call: malformed params or arguments nested too deep are -32602, an unknown tool -32601, arguments the tool's schema
 * refuses an InvalidInput result naming every problem, domain errors `isError` results
 * `{code, message, details?}` (or the error's partial result with the error under `error`), a
 * write that failed unexpectedly an `isError` result with `write_outcome: "unknown"`, and the
 * in-flight limit holds.
 */
export function createAwrServer(host: ToolHost): Server {
  sharedValidator ??= new AjvJsonSchemaValidator();
  const server = new Server(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: INSTRUCTIONS[host.mode],
      jsonSchemaValidator: sharedValidator,
    },
  );
  const tools = toolSet(host.mode, {
    workstreams: host.workstreams === true,
    exposure: host.exposure ?? toolExposureFrom(process.env),
  });

  async function runProjectTool(
    entry: ToolSetEntry & { target: { kind: "project" } },
    args: AdmittedInput,
    signal: AbortSignal,
  ): Promise<unknown> {
    const { project, ...rest } = args;
    const { operation } = entry.target;
    const access = operation.kind === "write" ? "write" : "read";
    const resolved = await host.resolveProject(project as string | undefined, access, {
      signal,
      tool: entry.name,
      workstreamRead: operation.availability === "workstreams",
    });
    try {
      return await resolved.ledger.execute(entry.name, rest, host.caller, {
        signal,
        workstreamAccess: resolved.workstreamAccess,
      });
    } catch (error) {
      throw resolved.explain === undefined ? error : resolved.explain(error);
    }
  }

  function run(entry: ToolSetEntry, args: AdmittedInput, signal: AbortSignal) {
    const { target } = entry;
    if (target.kind === "project") {
      return runProjectTool(entry as ToolSetEntry & { target: typeof target }, args, signal);
    }
    // The one tool the service answers itself; only the shared service lists it.
    return Promise.resolve(host.listProjects?.());
  }

  // The catalog is one page: a cursor can only be a client's mistake, answered as such rather
  // than with the first page again.
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    if (request.params?.cursor !== undefined) {
      throw new McpError(
        JsonRpcErrorCode.InvalidParams,
        "this tool catalog has no next cursor: tools/list answers every tool at once; call it without a cursor",
      );
    }
    return tools.listResult();
  });
  // The SDK's Server answers tools/call params that fail its schema (no params, a name that is
  // not a string, arguments that are not an object) with -32602 before this handler runs.
  server.setRequestHandler(ToolsCall, async (request, extra) => {
    const { name, arguments: given } = (request as CallToolRequest).params;
    let args = given ?? {};
    // A top-level `__proto__` key that reached here as a prototype (an in-process transport) is
    // refused by name like any unknown argument.
    if (Object.getPrototypeOf(args) !== Object.prototype) {
      args = Object.assign({ [PROTO_KEY_ALIAS]: true }, args);
    }
    let entry = tools.entries.get(name);
    if (!entry) {
      checkDepth(args);
      throw new McpError(
        JsonRpcErrorCode.MethodNotFound,
        `Unknown tool: ${name}. Call tools/list.`,
      );
    }
    let manifestProject: string | undefined;
    if (entry.target.kind === "domain") {
      // A domain runs its child exactly as the flat call would: the child's arguments are
      // measured, checked and run as if they had come by the child's own name.
      const call = readDomainCall(entry.target.domain, args, host.mode);
      if (call.kind === "manifest") {
        if (call.project === undefined) return toolSuccess(entry.target.manifest);
        manifestProject = call.project;
      } else {
        const child = tools.entries.get(call.child);
        if (child === undefined) {
          throw new McpError(
            JsonRpcErrorCode.MethodNotFound,
            `${call.child} is not offered by this server. Call ${name} with no arguments for its children.`,
          );
        }
        entry = child;
        args = call.arguments;
      }
    }
    // Measured once: too deep is a protocol error; too large is the gate's InvalidInput result.
    const problem = checkDepth(args);
    if (!host.limiter.tryAcquire()) {
      throw new McpError(
        BUSY_ERROR_CODE,
        `Server busy: ${host.limiter.max} tool calls are already running. Nothing was done; retry shortly with the same arguments.`,
        { reason: "busy", limit: host.limiter.max },
      );
    }
    try {
      if (manifestProject !== undefined && entry.target.kind === "domain") {
        return await manifestFor(entry.target.manifest, manifestProject, extra.signal);
      }
      return await callTool(entry, args, problem, extra.signal);
    } finally {
      host.limiter.release();
    }
  });

  function checkDepth(args: Record<string, unknown>): ArgumentsProblem | undefined {
    const problem = argumentsProblem(args);
    if (problem?.kind === "depth") {
      throw new McpError(JsonRpcErrorCode.InvalidParams, describeArgumentsProblem(problem));
    }
    return problem;
  }

  /** A manifest on the shared service, for a project the caller may read (else its error). */
  async function manifestFor(
    manifest: unknown,
    project: string,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    try {
      await host.resolveProject(project, "read", { signal });
      return toolSuccess(manifest);
    } catch (error) {
      const payload = toolErrorPayload(error);
      if (payload) return toolFailure(payload);
      throw error;
    }
  }

  async function callTool(
    entry: ToolSetEntry,
    args: Record<string, unknown>,
    problem: ArgumentsProblem | undefined,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    try {
      // The call's one check against the catalog's schema for this transport; the ledger runs
      // the admitted arguments without checking them again.
      const input = admitArguments(entry.name, entry.input, args, { measured: { problem } });
      return toolSuccess(await run(entry, input, signal));
    } catch (error) {
      if (isLedgerError(error) && error.result !== undefined) {
        return toolFailure(error.result);
      }
      const payload = toolErrorPayload(error);
      if (payload) return toolFailure(payload);
      if (signal.aborted) throw error;
      host.log?.(`${entry.name} failed: ${(error as Error)?.stack ?? String(error)}`);
      if (entry.target.kind === "project" && entry.target.operation.kind === "write") {
        // The write may or may not have happened: say so as a result, never a bare -32603.
        const requestId = args["request_id"];
        return toolFailure({
          code: "MutationConflict",
          message: `${entry.name} failed unexpectedly (${(error as Error)?.message ?? String(error)}); whether it took effect is unknown. Do not replay it blindly: check it with awr_operation_get${typeof requestId === "string" ? ` (request_id ${requestId})` : ""} before retrying.`,
          details: {
            write_outcome: "unknown",
            ...(typeof requestId === "string" ? { request_id: requestId } : {}),
          },
        });
      }
      throw new McpError(
        JsonRpcErrorCode.InternalError,
        `${entry.name} failed unexpectedly: ${(error as Error)?.message ?? String(error)}.`,
      );
    }
  }

  return server;
}
