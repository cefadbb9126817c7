import { existsSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import type { Manifest, ManifestSource } from "../sources/manifest.js";

/** Where init looks for planning sources when no manifest is given, first match per domain. */
export const DISCOVERY_CANDIDATES: readonly Omit<ManifestSource, "options" | "role">[] = [
  { domain: "ledger", path: "work-ledger.yaml", adapter: "yaml-ledger-v1" },
  { domain: "ledger", path: "work-ledger.yml", adapter: "yaml-ledger-v1" },
  { domain: "ledger", path: "ledger/work-ledger.yaml", adapter: "yaml-ledger-v1" },
  { domain: "ledger", path: "docs/work-ledger.yaml", adapter: "yaml-ledger-v1" },
  { domain: "ledger", path: ".awr/intake/work-ledger.yaml", adapter: "yaml-ledger-v1" },
  { domain: "goal", path: "GOALS.md", adapter: "markdown-heading-v1" },
  { domain: "goal", path: "docs/GOALS.md", adapter: "markdown-heading-v1" },
  { domain: "plan", path: "PLAN.md", adapter: "markdown-heading-v1" },
  { domain: "plan", path: "docs/PLAN.md", adapter: "markdown-heading-v1" },
  { domain: "rules", path: "RULES.md", adapter: "markdown-rules-v1" },
  { domain: "rules", path: "docs/RULES.md", adapter: "markdown-rules-v1" },
  { domain: "decisions", path: "docs/decisions", adapter: "markdown-directory-v1" },
  { domain: "decisions", path: "docs/adr", adapter: "markdown-directory-v1" },
  { domain: "decisions", path: "DECISIONS.md", adapter: "markdown-heading-v1" },
  { domain: "decisions", path: "docs/DECISIONS.md", adapter: "markdown-heading-v1" },
];

export const STARTER_LEDGER_PATH = ".awr/intake/work-ledger.yaml";

export const STARTER_LEDGER = `# AWR starter work ledger (yaml-ledger-v1). Add your work items below.
# Fields: id, title, status (draft|planned|ready|claimed|in_progress|blocked|completed|cancelled),
# goal, milestone, priority, owner, summary, acceptance[], depends_on[], next_action, blocker,
# tags[], paths[], evidence[], decisions[].
milestones: []
work_items: []
`;

export interface Discovery {
  manifest: Manifest;
  /** True when no work ledger exists and the starter ledger path was chosen. */
  starter: boolean;
}

/** A candidate is present when its file (or, for a directory adapter, its directory) exists. */
function present(root: string, candidate: { path: string; adapter: string }): boolean {
  const path = join(root, candidate.path);
  if (!existsSync(path)) return false;
  return statSync(path).isDirectory() === (candidate.adapter === "markdown-directory-v1");
}

/** Builds a default manifest from the files present under `root`. */
export function discoverManifest(root: string, createStarter: boolean): Discovery {
  const sources: ManifestSource[] = [];
  const domains = new Set<string>();
  for (const candidate of DISCOVERY_CANDIDATES) {
    if (domains.has(candidate.domain) || !present(root, candidate)) continue;
    domains.add(candidate.domain);
    sources.push({
      ...candidate,
      // Every discovered source is authoritative but decisions (docs/compatibility/commands.md).
      role: candidate.domain === "decisions" ? "supporting" : "primary",
      options: {},
    });
  }
  let starter = false;
  if (!domains.has("ledger") && createStarter) {
    starter = true;
    sources.unshift({
      domain: "ledger",
      role: "primary",
      path: STARTER_LEDGER_PATH,
      adapter: "yaml-ledger-v1",
      options: {},
    });
  }
  const name = basename(root).replace(/[^A-Za-z0-9._-]+/g, "-") || "project";
  return {
    manifest: {
      project: { name, authority_mode: "source_first" },
      storage: { backend: "sqlite" },
      sources,
    },
    starter,
  };
}
