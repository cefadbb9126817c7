// The `@awr/awr-ledger/context` entry: the context compiler's input and result types, its
// budgets and rule scopes, and the token counter. Named exports only.

export type { ContextBootstrapInput } from "./bootstrap-context.js";
export type { ContextCompileInput } from "./compile-context.js";
export { DEFAULT_BOOTSTRAP_BUDGET, DEFAULT_CONTEXT_BUDGET } from "./context-defaults.js";
export type {
  BootstrapContext,
  BootstrapGap,
  BootstrapWork,
  BUDGET_POLICY,
  ChunkSelection,
  CompletenessIssue,
  ContextBootstrapResult,
  ContextCompileResult,
  ContextCompleteness,
  ContextIdentity,
  ContextOmission,
  EvidenceGap,
  OmittedChunk,
  PacketMeta,
  SelectedEntity,
  SelectionBasis,
  SourceVersion,
  TOKEN_COUNT_SCOPE,
  TOKENIZER,
  WorkContext,
} from "./context-types.js";
export type { Continuity, ContinuityPredecessor, ContinuityWait } from "./continuity.js";
export { SCOPE_KINDS, type ScopeEntry, type ScopeKind } from "./rule-scope.js";
export type { RuleFact } from "./select-rules.js";
export { countTokens } from "./tokens.js";
