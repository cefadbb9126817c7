// The `@awr/awr-ledger/secrets` entry: the secret policy's detectors and its version, as the
// server and the CLI apply them at their boundaries (README "Secret policy"). Named exports only.

export { assertNoSecret } from "./assert-no-secret.js";
export { findSecretInValue } from "./find-in-value.js";
export { findSecret, findSecretsInSource } from "./find-secret.js";
export {
  REDACTED,
  SECRET_POLICY_VERSION,
  type SecretCategory,
  type SecretFinding,
  type SourceSecretFinding,
  type ValueSecretFinding,
} from "./policy.js";
