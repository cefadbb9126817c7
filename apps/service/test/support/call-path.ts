import { domainOf } from "@awr/awr-ledger/catalog";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

/**
 * How a host scenario calls its tools: by their flat names, or through their grouped domain
 * (`awr_work {child_tool, arguments}`, `project` at the top on the shared service). Every host
 * scenario runs both ways and must see the same answers.
 */
export type CallPath = "flat" | "domain";
export const CALL_PATHS: readonly CallPath[] = ["flat", "domain"];

interface Route {
  readonly path: CallPath;
  /** On the shared service a domain call carries `project` at the top, beside child_tool. */
  readonly shared: boolean;
}
const routeOf = new WeakMap<Client, Route>();

/** Makes every `call`/`toolCall` on `client` go by `path`; returns the client. */
export function callingBy(client: Client, path: CallPath, shared = false): Client {
  routeOf.set(client, { path, shared });
  return client;
}

/**
 * Calls `name` with `args` the way the client was set to (flat by default). Tools that belong to
 * no domain (awr_projects_list, awr_workstream) are always called by name. Over stdio the child
 * gets its arguments as they are; on the shared service `project` moves to the domain call.
 */
export function toolCall(client: Client, name: string, args: Record<string, unknown>) {
  const route = routeOf.get(client);
  const domain = route?.path === "domain" ? domainOf(name) : undefined;
  if (domain === undefined) return client.callTool({ name, arguments: args });
  const { project, ...rest } = args;
  const arguments_ = route?.shared
    ? { project, child_tool: name, arguments: rest }
    : { child_tool: name, arguments: args };
  return client.callTool({ name: domain.name, arguments: arguments_ });
}
