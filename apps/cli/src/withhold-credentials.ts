import { CliError, EXIT_CODES } from "./cli-error.js";

/**
 * The secret policy on what a failing `awr` prints (docs/design/secret-boundaries.md, section
 * 5): a command line holding a credential fails with RuleViolation naming the argument, never
 * echoing it (a usage error would quote the value), and no error message that quotes one is
 * printed as it is. Checked on the failure path only, so a successful run does not load the
 * detector; what succeeds reached the ledger, which refuses credentials in every tool input.
 */
export async function withholdCredentials(
  failure: CliError,
  args: readonly string[],
): Promise<CliError> {
  const { findSecret, findSecretInValue, SECRET_POLICY_VERSION } = await import("@awr/awr-ledger");
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
      },
    );
  }
  const printed = JSON.stringify({ message: failure.message, details: failure.details ?? null });
  if (findSecret(printed) === undefined) return failure;
  return new CliError(failure.code, "the error message is withheld: it quoted a credential", {
    details: { policy_version: SECRET_POLICY_VERSION },
    exitCode: failure.exitCode,
  });
}
