import type { AdapterName } from "../manifest.js";
import { markdownDirectoryV1 } from "./markdown-directory-v1.js";
import { markdownHeadingV1, markdownRulesV1 } from "./markdown-heading-v1.js";
import type { SourceAdapter } from "./types.js";
import { yamlLedgerV1 } from "./yaml-ledger-v1.js";
import { yamlWorkstreamLedgerV1 } from "./yaml-workstream-ledger-v1.js";

/** The adapters by manifest name; markdown-directory-v1 parses one file of its directory. */
export const SOURCE_ADAPTERS: Record<AdapterName, SourceAdapter> = {
  "yaml-ledger-v1": yamlLedgerV1,
  "yaml-workstream-ledger-v1": yamlWorkstreamLedgerV1,
  "markdown-heading-v1": markdownHeadingV1,
  "markdown-rules-v1": markdownRulesV1,
  "markdown-directory-v1": markdownDirectoryV1,
};

export type {
  AdapterContext,
  AdapterResult,
  ParsedDependency,
  ParsedEntity,
  SourceIssue,
} from "./types.js";
