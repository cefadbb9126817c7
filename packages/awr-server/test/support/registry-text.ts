/**
 * The text of a service registry with projects billing (01BILLING) and support (01SUPPORT) at the
 * given roots, and clients engineering (writes both) and reviewer (reads billing) whose tokens are
 * in the named environment variables. `head` stands after the version line; the text ends with
 * the reviewer's entry, so a test appends what else it needs.
 */
export function twoProjectRegistry(options: {
  version: number;
  head: string;
  billing: string;
  support: string;
  engineeringTokenEnv: string;
  reviewerTokenEnv: string;
}): string {
  return `version = ${options.version}
${options.head}

[[projects]]
key = "billing"
root = "${options.billing}"
project_id = "01BILLING"

[[projects]]
key = "support"
root = "${options.support}"
project_id = "01SUPPORT"

[[clients]]
id = "engineering"
token_env = "${options.engineeringTokenEnv}"
write = ["billing", "support"]

[[clients]]
id = "reviewer"
token_env = "${options.reviewerTokenEnv}"
read = ["billing"]
`;
}
