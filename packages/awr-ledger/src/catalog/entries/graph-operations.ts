import { branchIdOf, resolveBranch } from "../../runtime/branch-select.js";
import { about, bounded, branch, id, object } from "../json-schema.js";
import { LIMITS } from "../limits.js";
import { operation } from "../operation.js";

export interface WorkGraphToolInput {
  roots?: string[] | undefined;
  branch?: string | null | undefined;
  limit?: number | undefined;
}

export const workGraphOperation = operation({
  tool: "awr_work_graph",
  kind: "read",
  freshness: "sources",
  description:
    "Read dependencies, dependents, readiness and claims. Roots include required ancestors; no silent closure truncation. Host owns execution/concurrency.",
  input: object({
    roots: about("Work keys; omit: all work.", {
      type: "array",
      items: id(),
      maxItems: LIMITS.graphRoots,
    }),
    branch: branch(),
    limit: about("Max work items in the closure.", bounded(LIMITS.graphLimit)),
  }),
  run: async (host, input: WorkGraphToolInput, _caller, options) => {
    const { workGraph } = await import("../../graph/work-graph.js");
    const { store } = host.runtime;
    return store.read(async (db) => {
      const revision = await store.currentRevision(db);
      const branch = branchIdOf(await resolveBranch(db, input.branch));
      return workGraph(db, input, revision, branch);
    }, options);
  },
  cli: [
    {
      path: ["work", "graph"],
      summary: "dependencies, dependents, readiness and claims around --root work (all without)",
      flags: { roots: "--root" },
    },
  ],
});
