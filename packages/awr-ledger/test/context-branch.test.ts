import type { LedgerError } from "@awr/awr-ledger";
import { afterEach, describe, expect, it } from "vitest";
import { BACKENDS } from "./helpers/backends.js";
import { compileL1 } from "./helpers/context.js";
import { ledgerFailure } from "./helpers/failures.js";
import { type OpenProject, openFixtureProject } from "./helpers/projects.js";

const caller = { client: "stdio" };

// A context packet on a named branch compiles that branch's runtime delta since its fork, over
// the shared current sources (docs/design/work-branches.md R8).
describe.each(BACKENDS)("branch context on %s", (backend) => {
  let p: OpenProject | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  async function project() {
    p = await openFixtureProject("basic", backend);
    const { ledger } = p;
    const revision = async () =>
      ((await ledger.call("awr_branch_list", {}, caller)) as { project_revision: number })
        .project_revision;
    const note = async (summary: string, branch?: string) =>
      ledger.call(
        "awr_event_append",
        {
          event_type: "note.seen",
          summary,
          work: "PAY-2",
          ...(branch === undefined ? {} : { branch }),
          expected_revision: await revision(),
        },
        caller,
      );
    await note("main before the fork");
    const fork = await revision();
    const created = (await ledger.call(
      "awr_branch_create",
      { name: "spike", actor: "lee", reason: "r", expected_revision: fork },
      caller,
    )) as { branch: { id: string } };
    await note("spike after the fork", "spike");
    await note("main after the fork");
    return { ledger, fork, spike: created.branch.id };
  }

  it("compiles the named branch's events since its fork, never main's", async () => {
    const { ledger, fork, spike } = await project();
    const ctx = await compileL1(
      ledger,
      { work: "PAY-2", branch: "spike", detached: true, goals: ["goal#checkout"], budget: 5000 },
      caller,
    );
    const pack = ctx.work_context;
    if (pack === null) throw new Error("no packet");
    expect(ctx.delta_after_revision).toBe(fork);
    expect(pack.identity.branch_id).toBe(spike);
    expect(ctx.completeness).toMatchObject({
      branch_id: spike,
      branch_context: {
        branch_id: spike,
        name: "spike",
        parent_branch_id: null,
        fork_project_revision: fork,
        source_basis: "shared_current_sources",
      },
    });
    const text = pack.rendered_context;
    expect(text).toContain("spike after the fork");
    expect(text).not.toContain("main after the fork");
    expect(text).not.toContain("main before the fork");
    expect(pack.selected_chunks.find((c) => c.key === "branch-context")?.required).toBe(true);
  });

  it("compiles an explicit main from revision 0, and the selected default as before", async () => {
    const { ledger } = await project();
    const main = await compileL1(
      ledger,
      { work: "PAY-2", branch: "main", detached: true, goals: ["goal#checkout"], budget: 5000 },
      caller,
    );
    expect(main.delta_after_revision).toBe(0);
    expect(main.completeness).toMatchObject({ branch_id: null, branch_context: { name: "main" } });
    const text = main.work_context?.rendered_context ?? "";
    expect(text).toContain("main before the fork");
    expect(text).toContain("main after the fork");
    expect(text).not.toContain("spike after the fork");
    const ordinary = await compileL1(
      ledger,
      { work: "PAY-2", detached: true, goals: ["goal#checkout"], budget: 5000 },
      caller,
    );
    expect(ordinary.completeness.branch_id).toBeNull();
    expect(ordinary.completeness).not.toHaveProperty("branch_context");
  });

  it("refuses a checkpoint or after_revision baseline with a named branch", async () => {
    const { ledger } = await project();
    for (const baseline of [{ after_revision: 1 }, { checkpoint: "c" }]) {
      const error = await ledgerFailure(
        ledger.call("awr_context_compile", { work: "PAY-2", branch: "spike", ...baseline }, caller),
      );
      expect([error.code, error.message]).toEqual([
        "InvalidInput",
        expect.stringContaining("named branch context/delta uses the fork baseline"),
      ]);
    }
  });

  it("refuses an ordinary baseline before the selected branch's fork", async () => {
    const { ledger, fork } = await project();
    const revision = (
      (await ledger.call("awr_branch_list", {}, caller)) as { project_revision: number }
    ).project_revision;
    await ledger.call(
      "awr_branch_switch",
      { branch: "spike", actor: "lee", reason: "r", expected_revision: revision },
      caller,
    );
    const error = await ledgerFailure(
      ledger.call(
        "awr_context_compile",
        { work: "PAY-2", detached: true, after_revision: fork - 1 },
        caller,
      ),
    );
    expect([error.code, error.message]).toEqual([
      "InvalidInput",
      expect.stringContaining("delta baseline precedes branch fork"),
    ]);
  });

  it("compiles on a branch given by id from the ordinary baseline (the CLI's context compile --branch)", async () => {
    const { ledger, fork, spike } = await project();
    const input = { work: "PAY-2", detached: true, goals: ["goal#checkout"], budget: 5000 };
    const ctx = (await ledger.call(
      "awr_context_compile",
      { ...input, after_revision: fork },
      caller,
      { contextBranch: spike },
    )) as Awaited<ReturnType<typeof compileL1>>;
    expect(ctx.delta_after_revision).toBe(fork);
    expect(ctx.completeness).toMatchObject({ branch_id: spike });
    expect(ctx.completeness).not.toHaveProperty("branch_context");
    const refusal = (call: Promise<unknown>) =>
      call.then(
        () => undefined,
        (e: unknown) => [(e as LedgerError).code, (e as LedgerError).message],
      );
    expect(
      await refusal(ledger.call("awr_context_compile", input, caller, { contextBranch: "spike" })),
    ).toEqual(["InvalidInput", expect.stringContaining("takes a branch id; spike is a name")]);
    expect(
      await refusal(
        ledger.call("awr_context_compile", { ...input, branch: "spike" }, caller, {
          contextBranch: spike,
        }),
      ),
    ).toEqual(["InvalidInput", expect.stringContaining("give the branch once")]);
  });
});
