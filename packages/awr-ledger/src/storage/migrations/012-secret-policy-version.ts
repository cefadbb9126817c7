import type { Migration } from "../migration.js";

// The secret policy version the sources were last checked under (docs/design/secret-boundaries.md,
// "Phase 2 as built"). A reindex re-checks every source when it is older than the code's, so a
// policy that learns a new credential shape also finds it in files that have not changed. Every
// ledger before this step was indexed under version 3, the version since the first release, so
// they start there and upgrading forces nothing. The number is written out: a released step
// never changes with the code.
const statements = [
  "ALTER TABLE project_state ADD COLUMN secret_policy_version INTEGER NOT NULL DEFAULT 3",
];

export const migration012SecretPolicyVersion: Migration = {
  version: 12,
  name: "project_state records the secret policy version of the last index",
  statements: { sqlite: statements, postgres: statements },
};
