/**
 * The secret policy: its version, what a finding names, and the refusal. See
 * docs/design/secret-boundaries.md for the recognition rules and where the ledger applies them.
 *
 * A finding names a category and a position, never the matched text: it is safe to log, return
 * to a client or store.
 */

/**
 * Bumped whenever what the detector recognises changes, so that anything derived under an older
 * policy (a search index, a cached summary) can be rebuilt (docs/compatibility/storage.md).
 */
export const SECRET_POLICY_VERSION = 3;

/** What a secret-bearing text or summary is shown as wherever it would otherwise appear. */
export const REDACTED = "[redacted]";

export const SECRET_CATEGORIES = [
  /** `sk-…` with at least 16 more token characters. */
  "openai_key",
  /** `ghp_`/`gho_`/`ghu_`/`ghs_`/`ghr_` + 20, or `github_pat_` + 20. */
  "github_token",
  /** `xoxb-`/`xoxa-`/`xoxp-`/`xoxr-`/`xoxs-` + 12. */
  "slack_token",
  /** `AKIA`/`ASIA` + 16 upper-case letters or digits. */
  "aws_access_key",
  /** Three base64url segments, the first starting `eyJ`. */
  "jwt",
  /** A PEM `-----BEGIN … PRIVATE KEY-----` header. */
  "private_key",
  /** `scheme://user:password@…` (a placeholder password is not one). */
  "url_credentials",
  /** `Bearer <opaque value>`: 32+ characters, or 8+ with a digit, separator or inner capital. */
  "bearer_credential",
  /** `Basic <base64>` that decodes to `user:password`. */
  "basic_credential",
  /** A secret label (api key, token, password, authorization, 密码, …) followed by a value. */
  "labelled_value",
  /** A private-prompt label with a value, or a private-prompt heading with text under it. */
  "private_prompt",
  /** `.env`-style `NAME=value` at the start of a line, or `export NAME=value`. */
  "env_assignment",
  /** An `env`/`environment`/`环境变量` object, list or multi-line block with content. */
  "env_block",
] as const;
export type SecretCategory = (typeof SECRET_CATEGORIES)[number];

/** Where in a text a secret was found. Positions are in UTF-16 units of the caller's text. */
export interface SecretFinding {
  readonly category: SecretCategory;
  /** Index of the first character of the match (the label, the name or the token). */
  readonly offset: number;
  /** 1-based line of `offset` (lines end at `\n`). */
  readonly line: number;
  /** 1-based column of `offset` within its line. */
  readonly column: number;
}

/** One line of a source file that holds a secret. */
export interface SourceSecretFinding {
  readonly line: number;
  readonly category: SecretCategory;
}

/** Where in a JSON-like value a secret was found. */
export interface ValueSecretFinding {
  readonly category: SecretCategory;
  /**
   * JSONPath of the string or field, from the caller's root name (default `$`): `.name` for
   * identifier keys, `["a b"]` for other clean keys, `.*` for a key that is withheld (itself
   * secret-bearing or over 64 characters), `[3]` for array items.
   */
  readonly path: string;
  /**
   * `value`: the string at `path` holds the secret (see `line`/`column`), or the field at `path`
   * is named like a secret and has a value. `key`: a key of the object at `path` holds it.
   */
  readonly in: "value" | "key";
  /** Position inside the string at `path` (absent for a field refused by its name). */
  readonly line?: number;
  readonly column?: number;
}

/** The refusal's message: fixed, naming the fix; never any part of the input. */
export function secretRefusal(what: string): string {
  return `${what} contains a credential; remove it and pass a reference`;
}
