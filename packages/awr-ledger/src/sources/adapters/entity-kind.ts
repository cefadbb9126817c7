import type { EntityKind } from "../../storage/schema.js";

/**
 * The entity kind a source domain projects to. The manifest's domains are `ledger`, `goal`,
 * `plan`, `rules` and `decisions`; the kinds are singular (`work`, `rule`, `decision`), and the
 * earlier domain names (`work`, `rule`, `decision`) are accepted as they are.
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
