import { LedgerError } from "../errors.js";
import { loadInOrder } from "../internal/ordered-import.js";
import { WORKSTREAM_ACTIONS } from "../workstreams/workstream-capabilities.js";
import { about, id, object } from "./json-schema.js";
import { operation } from "./operation.js";

export interface WorkstreamToolInput {
  protocol_version: number;
  action: string;
  workstream?: string | undefined;
  work?: string | undefined;
  session?: string | undefined;
  args?: Record<string, unknown> | undefined;
}

/**
 * awr_workstream, the shared service's scoped reads (docs/compatibility/workstreams.md): the
 * ledger's workstreamRead for the caller's grants. The schema lists the original's
 * protocol_version 1 and its eight actions, but another version or action reaches the ledger,
 * which answers Unsupported as the original does; each action's `args` are the ledger's to
 * check. An incomplete context packet is ContextIncomplete carrying the whole envelope.
 */
export const workstreamOperation = operation({
  tool: "awr_workstream",
  kind: "read",
  freshness: "scoped",
  availability: "workstreams",
  lenient: ["protocol_version", "action"],
  description:
    "Read-only access to the workstreams your credential is granted (a project grant alone reads none). Start with action capabilities (the actions and their args), then list. The workstream comes from session or work (its owner), else workstream, else your only grant. Answers {ok, read_only, protocol_version, workstream, scope_binding, project_revision, result}; an incomplete context is an error result. Errors: WorkstreamAccessDenied, WorkstreamScopeRequired, WorkstreamBindingMismatch, WorkstreamStaleAuthority (ask the operator), SourceStale, Unsupported.",
  input: object(
    {
      protocol_version: about("Always 1.", { type: "integer", const: 1 }),
      action: about("What to read; start with capabilities.", {
        type: "string",
        enum: [...WORKSTREAM_ACTIONS],
      }),
      workstream: about("A granted workstream key.", id()),
      work: about("Work key; selects its workstream.", id()),
      session: about("Session id; selects its workstream.", id()),
      args: {
        type: "object",
        additionalProperties: true,
        description: "Action-specific fields; use capabilities for schemas.",
      },
    },
    ["protocol_version", "action"],
  ),
  run: async (host, input: WorkstreamToolInput, _caller, options) => {
    const { workstreamRead } = await loadInOrder(() => import("../workstreams/workstream-read.js"));
    const project = host.project;
    if (project === undefined) {
      throw new LedgerError("Unsupported", "awr_workstream needs the project's sources");
    }
    const ledger = { store: host.runtime.store, projectId: project.projectId, context: project };
    const answer = await workstreamRead(ledger, input, options.workstreamAccess, options);
    if (answer["ok"] === false) {
      const result = answer["result"] as { completeness?: unknown };
      throw new LedgerError(
        "ContextIncomplete",
        "The workstream context has required gaps; inspect completeness before execution.",
        { completeness: result.completeness },
        { result: answer },
      );
    }
    return answer;
  },
  cli: [],
});
