import type { CompileContextScope } from "../context/compile-context.js";
import type { ContextCompileResult } from "../context/context-types.js";
import type { RuntimeCaller } from "../core/runtime-context.js";
import { LedgerError } from "../errors.js";
import type { LedgerContext } from "../project/ledger-context.js";

/** What the context compiler needs to know about the project and the call. */
export function contextScope(
  project: LedgerContext,
  caller: RuntimeCaller,
  revision: number,
): CompileContextScope {
  return {
    client: caller.client,
    revision,
    projectId: project.projectId,
    projectKey: project.manifest().manifest.project.external_key ?? project.projectName,
    projectName: project.projectName,
    contextProfile: project.manifest().manifest.project.context_profile,
  };
}

/**
 * awr_context_compile answers the compiler's L1 result as it is (the packet under
 * `work_context`). A packet with required gaps (an unknown work item, missing acceptance or
 * rules, an unresolved dependency) is ContextIncomplete carrying the whole result, whose
 * `completeness` says what is missing. The error itself has no details: the result's
 * `completeness` is the one copy (it was repeated in the error's details, some 2 KB per answer;
 * docs/compatibility/context-answer.md).
 */
export function completeContext(compiled: ContextCompileResult): ContextCompileResult {
  if (compiled.completeness.complete) return compiled;
  throw new LedgerError(
    "ContextIncomplete",
    "The context has required gaps; inspect completeness before execution.",
    undefined,
    { result: { ...compiled } },
  );
}
