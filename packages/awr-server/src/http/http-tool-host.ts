import type { CallLimiter } from "../internal/call-limiter.js";
import type { Registry, RegistryClient } from "../registry/registry-types.js";
import type { ToolHost } from "../server/tool-host.js";
import { AwrToolError } from "../tool-result.js";
import { readWorkstream, type WorkstreamReadRequest } from "../workstreams/workstream-reads.js";
import type { ProjectDirectory } from "./project-directory.js";

const denied = () => new AwrToolError("RuleViolation", "project access denied");

/**
 * The ToolHost of one authenticated HTTP request. An unknown key, a path and an ungranted key
 * get the same answer, so a client learns nothing about projects it may not use.
 */
export function httpToolHost(input: {
  registry: Registry;
  client: RegistryClient;
  projects: ProjectDirectory;
  limiter: CallLimiter;
  log?: (line: string) => void;
}): ToolHost {
  const { registry, client, projects } = input;
  const host: ToolHost = {
    mode: "http",
    caller: { client: client.id },
    limiter: input.limiter,
    async resolveProject(key, access, options) {
      if (key === undefined || !projects.has(key) || !client.read.has(key)) throw denied();
      if (access === "write" && !client.write.has(key)) {
        throw new AwrToolError(
          "RuleViolation",
          `read-only access to project "${key}": this credential cannot write. Use read tools, or ask the operator for write access.`,
        );
      }
      const { ledger, project } = await projects.use(key, options);
      return { ledger, root: project.root };
    },
    listProjects() {
      const list = registry.projects
        .filter(
          (project) => client.read.has(project.key) || grantsOn(client, project.key).length > 0,
        )
        // Key and access only: never a root, a path or an identity of the server's disk.
        .map((project) => ({
          key: project.key,
          // "workstreams": only workstream grants, no project tools (awr_workstream lists them).
          access: client.write.has(project.key)
            ? "write"
            : client.read.has(project.key)
              ? "read"
              : "workstreams",
        }));
      return { client: client.id, projects: list };
    },
    log: input.log,
  };
  if (registry.version === 2) {
    host.workstream = async (args, options) => {
      const key = args["project"] as string;
      const grants = grantsOn(client, key);
      if (!projects.has(key) || (!client.read.has(key) && grants.length === 0)) throw denied();
      const { project } = await projects.use(key, options);
      return readWorkstream({
        root: project.root,
        project: key,
        client: client.id,
        grants,
        args: args as unknown as WorkstreamReadRequest["args"],
      });
    };
  }
  return host;
}

function grantsOn(client: RegistryClient, key: string) {
  return client.workstreams
    .filter((grant) => grant.project === key)
    .map(({ workstream_id, authority_version }) => ({ workstream_id, authority_version }));
}
