// The `@awr/awr-ledger/workstreams` entry: the public API of the workstream domain
// (docs/compatibility/workstreams.md).

export type { Workstream } from "../projection/workstream-catalog.js";
export {
  isExternalKey,
  WORKSTREAM_STATES,
  type WorkstreamDeclaration,
  type WorkstreamDefinition,
  type WorkstreamState,
  workstreamIdOf,
} from "../sources/adapters/workstream-format.js";
export type {
  WorkstreamAccess,
  WorkstreamGrant,
  WorkstreamSelection,
} from "./workstream-access.js";
export {
  WORKSTREAM_ACTIONS,
  WORKSTREAM_PROTOCOL_VERSION,
  type WorkstreamAction,
  workstreamCapabilities,
} from "./workstream-capabilities.js";
export {
  assertProjectToolAllowed,
  enableWorkstreams,
  listWorkstreams,
  WORKSTREAM_ADAPTER,
  type WorkstreamListing,
  workstreamsEnabled,
} from "./workstream-enablement.js";
export {
  derivedWorkstreamId,
  migrateWorkstreams,
  type WorkstreamMigration,
} from "./workstream-migrate.js";
export type {
  WorkstreamEnvelope,
  WorkstreamLedger,
  WorkstreamRequest,
} from "./workstream-read.js";
