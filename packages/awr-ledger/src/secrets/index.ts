// The secret detector (docs/design/secret-boundaries.md): one policy for every path.
export { assertNoSecret } from "./assert-no-secret.js";
export { findSecretInValue, MAX_VALUE_DEPTH, MAX_VALUE_NODES } from "./find-in-value.js";
export { findSecret, findSecretsInSource } from "./find-secret.js";
export {
  REDACTED,
  SECRET_CATEGORIES,
  SECRET_POLICY_VERSION,
  type SecretCategory,
  type SecretFinding,
  type SourceSecretFinding,
  secretRefusal,
  type ValueSecretFinding,
} from "./policy.js";
export { redactSecretStrings } from "./redact-strings.js";
