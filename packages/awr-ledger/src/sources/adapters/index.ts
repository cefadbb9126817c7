import type { AdapterName } from "../manifest.js";
import { markdownHeadingV1, markdownRulesV1 } from "./markdown-heading-v1.js";
import type { SourceAdapter } from "./types.js";
import { yamlLedgerV1 } from "./yaml-ledger-v1.js";

export const SOURCE_ADAPTERS: Record<AdapterName, SourceAdapter> = {
  "yaml-ledger-v1": yamlLedgerV1,
  "markdown-heading-v1": markdownHeadingV1,
  "markdown-rules-v1": markdownRulesV1,
};

export type {
  AdapterContext,
  AdapterResult,
  ParsedDependency,
  ParsedEntity,
  SourceIssue,
} from "./types.js";
