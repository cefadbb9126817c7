import type { WorkHandoffInput } from "../../work/work-handoff.js";
import { id, object, revision, SESSION_SELECTOR, ttlMs } from "../json-schema.js";
import { operation } from "../operation.js";

/** `awr work handoff`: CLI-only, never a tool (docs/design/work-branches.md R9). */
export const workHandoffOperation = operation({
  tool: "awr_work_handoff",
  kind: "write",
  freshness: "runtime",
  surface: "cli",
  description:
    "Hands unfinished work from a session to another session of the same work and branch (or to nobody), with the sender's claim.",
  input: {
    ...object(
      {
        expected_revision: revision(),
        work: id(),
        session: id(),
        conversation: id(),
        to_session: id(),
        ttl_ms: ttlMs(),
      },
      ["expected_revision", "work"],
    ),
    ...SESSION_SELECTOR,
  },
  run: async (host, input: WorkHandoffInput, caller, options) =>
    (await import("../../work/work-handoff.js")).workHandoff(host.runtime, input, caller, options),
  cli: [
    {
      path: ["work", "handoff"],
      summary: "hand unfinished work to another session of the same work and branch",
      operands: [{ field: "work", name: "WORK" }],
    },
  ],
});
