import { CliError, EXIT_CODES } from "./cli-error.js";

/**
 * The secret policy on what a failing `awr` prints (docs/design/secret-boundaries.md, section
 * 5): a failing command line that holds a credential fails with RuleViolation naming the
 * argument, never echoing it (a usage error would quote the value). Checked on the failure path
 * only, so a successful run does not load the detector; what succeeds reached the ledger, which
 * refuses credentials in every tool input. Messages are not scanned: the CLI's own guidance
 * (`export NAME="$(cat token-file)"`) reads like an assignment, and the service and the ledger
 * never quote a credential they refused.
 */
export async function withholdCredentials(
  failure: CliError,
  args: readonly string[],
): Promise<CliError> {
  const { findSecretInValue, SECRET_POLICY_VERSION } = await import("@awr/awr-ledger/secrets");
  if (failure.details?.["policy_version"] !== undefined) return failure;
  const inArgs = findSecretInValue([...args], "argv");
  if (inArgs !== undefined) {
    return new CliError(
      "RuleViolation",
      "the command line contains a credential; remove it and pass a reference",
      {
        details: {
          policy_version: SECRET_POLICY_VERSION,
          category: inArgs.category,
          path: inArgs.path,
        },
        exitCode: EXIT_CODES.domain,
        next: "Remove the credential from the command line and refer to it instead, e.g. by the name of the environment variable that holds it (a service token: the variable --token-env names).",
      },
    );
  }
  return failure;
}
