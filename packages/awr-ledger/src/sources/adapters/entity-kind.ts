import type { EntityKind } from "../../storage/schema.js";

/**
 * The entity kind a source domain projects to. Manifest domains are the original's (`ledger`,
 * `goal`, `plan`, `rules`, `decisions`); the kinds are singular (`work`, `rule`, `decision`),
 * and the earlier domain names (`work`, `rule`, `decision`) are accepted as they are.
 */
export function entityKindOf(domain: string): EntityKind {
  switch (domain) {
    case "ledger":
    case "work":
      return "work";
    case "rules":
    case "rule":
      return "rule";
    case "decisions":
    case "decision":
      return "decision";
    case "plan":
      return "plan";
    default:
      return "goal";
  }
}
