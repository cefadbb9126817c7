import { loadInOrder } from "../../internal/ordered-import.js";
import type { WorkPrepareInput } from "../../prepare/work-prepare.js";
import { contextScope } from "../context-result.js";
import { about, bounded, branch, choice, id, nullable, object, strings } from "../json-schema.js";
import { LIMITS } from "../limits.js";
import { operation } from "../operation.js";
import { sourceSha } from "../shared-fields.js";
import { project } from "./read-operations.js";

export const RESPONSE_VIEWS = ["full", "summary", "action"] as const;

export const workPrepareOperation = operation({
  tool: "awr_work_prepare",
  kind: "read",
  freshness: "sources",
  description:
    "Readiness plus required context of one work item; writes and claims nothing. ContextIncomplete: gaps.",
  input: object(
    {
      work: about("Work item key.", id()),
      session: about("Session id.", nullable(id())),
      branch: branch(),
      goals: about("Goal keys.", strings()),
      source_sha: sourceSha(),
      budget: about(
        "Token budget (default 5000).",
        bounded({ min: LIMITS.budget.min, max: LIMITS.budget.max }),
      ),
      response_view: about("Shorter views.", {
        ...choice(RESPONSE_VIEWS),
        default: "full",
      }),
    },
    ["work"],
  ),
  run: async (host, input: WorkPrepareInput, caller, options) => {
    const [{ prepareWork }, { completePreparation, preparedView }] = await Promise.all([
      loadInOrder(() => import("../../prepare/work-prepare.js")),
      loadInOrder(() => import("../../prepare/prepare-views.js")),
    ]);
    const ledger = project(host);
    const { store } = host.runtime;
    return store.read(async (db) => {
      const revision = await store.currentRevision(db);
      const { prepared, session } = await prepareWork(
        db,
        input,
        contextScope(ledger, caller, revision),
        caller,
      );
      return completePreparation(preparedView(prepared, session, input));
    }, options);
  },
  cli: [
    {
      path: ["work", "prepare"],
      summary: "readiness and required context of one work item, without claiming it",
      operands: [{ field: "work", name: "WORK" }],
      flags: { goals: "--goal" },
      view: "prepare",
    },
  ],
});
