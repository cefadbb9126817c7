// The `@awr/awr-ledger/sources` entry: the planning sources below the ledger (manifest, adapters,
// their constant tables, confinement, fingerprints, the YAML write-back) and their projection
// (indexing, entity ids). It lives in projection/ because the projection sits above the sources
// and may export both. Named exports only.

export type {
  AdapterResult,
  ParsedDependency,
  ParsedEntity,
  SourceIssue,
} from "../sources/adapters/index.js";
export { SOURCE_ADAPTERS } from "../sources/adapters/index.js";
export { DECISION_STATUSES, RULE_SEVERITIES } from "../sources/adapters/markdown-heading-v1.js";
export {
  type AcceptanceCriterion,
  DEFAULT_ACCEPTANCE_LEVEL,
  EVIDENCE_LEVELS,
  WORK_STATUSES,
  type WorkStatus,
} from "../sources/adapters/yaml-ledger-v1.js";
export { confineSourcePath } from "../sources/confinement.js";
export { fingerprintBytes, MISSING_FINGERPRINT } from "../sources/fingerprint.js";
export {
  ADAPTERS,
  type AdapterName,
  type Manifest,
  type ManifestSource,
  type ManifestStorage,
  parseManifest,
  renderManifest,
  SOURCE_DOMAINS,
  type SourceDomain,
} from "../sources/manifest.js";
export { type LoadedManifest, loadManifest, MANIFEST_PATH } from "../sources/read-sources.js";
export { DEFAULT_MAX_BYTES } from "../sources/source-options.js";
export {
  type WorkItemChanges,
  type WriteBackResult,
  writeBackWorkItem,
} from "../sources/yaml-write-back.js";
export { entityId } from "./entity-id.js";
export {
  type IndexOptions,
  indexSources,
  type ReindexChanges,
  type ReindexResult,
  type SourceIndexState,
} from "./index-sources.js";
