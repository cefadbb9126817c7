import type { Migration } from "../migration.js";
import { migration001Base } from "./001-base.js";
import { migration002Runtime } from "./002-runtime.js";
import { migration003LockHolder } from "./003-lock-holder.js";
import { migration004ReadIndexes } from "./004-read-indexes.js";
import { migration005EventSearch } from "./005-event-search.js";
import { migration006SourcesAnyLanguage } from "./006-sources-any-language.js";
import { migration007Workstreams } from "./007-workstreams.js";
import { migration008EventImportanceEvidenceSha } from "./008-event-importance-evidence-sha.js";
import { migration009ProjectionChanges } from "./009-projection-changes.js";
import { migration010WorkBranches } from "./010-work-branches.js";
import { migration011SearchSkipsJournalReceipts } from "./011-search-skips-journal-receipts.js";
import { migration012SecretPolicyVersion } from "./012-secret-policy-version.js";
import { migration013PartialEventIndexes } from "./013-partial-event-indexes.js";
import { migration014SourceChanges } from "./014-source-changes.js";

/** Every schema step this code knows, in order. A released step is never edited: add one. */
export const MIGRATIONS: readonly Migration[] = [
  migration001Base,
  migration002Runtime,
  migration003LockHolder,
  migration004ReadIndexes,
  migration005EventSearch,
  migration006SourcesAnyLanguage,
  migration007Workstreams,
  migration008EventImportanceEvidenceSha,
  migration009ProjectionChanges,
  migration010WorkBranches,
  migration011SearchSkipsJournalReceipts,
  migration012SecretPolicyVersion,
  migration013PartialEventIndexes,
  migration014SourceChanges,
];
