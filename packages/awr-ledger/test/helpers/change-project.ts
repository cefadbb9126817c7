import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Backend } from "@awr/awr-ledger";
import { tempRoot } from "./backends.js";
import { type OpenProject, openProjectAt } from "./projects.js";

/**
 * A work ledger for the reviewed source changes: comments, a keyed order that is not
 * alphabetical, CJK text, CRLF line endings and a draft with its prerequisite done.
 */
export const CHANGE_LEDGER = [
  "# Planning ledger: keep these comments",
  "work_items:",
  "  - id: W-1",
  "    title: First task   # trailing comment",
  "    status: ready",
  "    goal: goal-a",
  "    priority: low",
  "    summary: 支払いページ",
  "    acceptance:",
  "      - It works",
  "    next_action: Write the handler",
  "  - id: W-2",
  "    status: completed",
  "    title: '二番目'",
  "    goal: goal-a",
  "    acceptance: [done]",
  "  - id: D-1",
  "    title: Draft follow-up",
  "    status: draft",
  "    goal: goal-a",
  "    acceptance:",
  "      - Reviewed",
  "    depends_on: [W-2]",
  "",
].join("\r\n");

export const CHANGE_MANIFEST = `[project]
name = "change-project"
external_key = "CHG"
authority_mode = "source_first"

[[sources]]
domain = "work"
role = "primary"
path = "work-ledger.yaml"
adapter = "yaml-ledger-v1"
`;

export async function openChangeProject(backend: Backend): Promise<OpenProject> {
  const { root, remove } = tempRoot("awr-change-");
  writeFileSync(join(root, "work-ledger.yaml"), CHANGE_LEDGER);
  writeFileSync(join(root, "project.toml"), CHANGE_MANIFEST);
  return openProjectAt(root, join(root, "project.toml"), backend, remove);
}
