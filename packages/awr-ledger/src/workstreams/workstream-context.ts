import type { Kysely } from "kysely";
import { type CompileContextScope, compileContext } from "../context/compile-context.js";
import { dependenciesOf } from "../read/entity-view.js";
import type { LedgerSchema } from "../storage/schema.js";
import { accessDenied, type ResolvedScope } from "./workstream-access.js";
import type { WorkstreamArgs } from "./workstream-capabilities.js";
import type { Visibility } from "./workstream-visibility.js";

/**
 * awr_workstream context `{budget?, intent?, checkpoint?, after_revision?}`: the ledger's
 * context packet for the bound work item or session (an overview of the workstream without
 * one) with the workstream's goals, compiled from its visible records only. A required dependency on work the
 * reader cannot see is listed opaquely (declaring item and edge, never the target) under
 * `unavailable_dependencies`, and like an inactive (paused or archived) workstream it makes the
 * packet incomplete.
 */
export async function workstreamContext(
  db: Kysely<LedgerSchema>,
  revision: number,
  scope: ResolvedScope,
  visible: Visibility,
  args: WorkstreamArgs,
  caller: Omit<CompileContextScope, "revision" | "visible">,
): Promise<Record<string, unknown>> {
  const checkpoint = args["checkpoint"] as string | undefined;
  if (checkpoint !== undefined) {
    const row = await db
      .selectFrom("checkpoints")
      .select("session")
      .where("id", "=", checkpoint)
      .executeTakeFirst();
    if (row === undefined || !(await visible.sessions()).has(row.session)) throw accessDenied();
  }
  // A bound session is compiled on its own branch (main when it has none); the project's
  // selected default does not apply to it.
  const sessionBranch =
    scope.session === null
      ? undefined
      : ((
          await db
            .selectFrom("sessions")
            .select("branch")
            .where("id", "=", scope.session)
            .executeTakeFirst()
        )?.branch ?? "main");
  const compiled = await compileContext(
    db,
    {
      work: scope.work ?? undefined,
      session: scope.session ?? undefined,
      ordinaryBranch: sessionBranch,
      budget: args["budget"] as number | undefined,
      intent: args["intent"] as string | undefined,
      checkpoint,
      after_revision: args["after_revision"] as number | undefined,
      goals: scope.stream.goal_keys,
    },
    { ...caller, revision, visible: visible.entity },
  );
  const work = compiled.work_context?.identity.work_item_key ?? null;
  const unavailable: { work: string; edge: string }[] = [];
  if (work !== null) {
    const deps = (await dependenciesOf(db, [work])).get(work) ?? [];
    for (const dep of deps) {
      if (dep.required && !visible.work.has(dep.work)) {
        const n = unavailable.length + 1;
        unavailable.push({
          work,
          edge: `${work}/depends_on/unavailable-${n}`,
        });
      }
    }
  }
  const complete =
    compiled.completeness.complete && unavailable.length === 0 && scope.stream.state === "active";
  return {
    ...compiled,
    unavailable_dependencies: unavailable,
    completeness: { ...compiled.completeness, complete },
  };
}
