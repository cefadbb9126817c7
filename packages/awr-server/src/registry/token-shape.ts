/** Bearer tokens shorter than this are refused. */
export const TOKEN_MIN_LENGTH = 32;
/** Bearer tokens longer than this are refused. */
export const TOKEN_MAX_LENGTH = 4096;
/** What a token may consist of: visible ASCII, so no space, line break or look-alike. */
export const TOKEN_PATTERN = /^[\x21-\x7e]+$/;

/**
 * Whether a `token_env` value looks like a token pasted where the variable's name belongs: as
 * long as a token, with lower case, upper case and digits (what `awr token new` prints; variable
 * names are upper snake case). Registry problems then describe it without repeating it, so the
 * token does not reach the service's log.
 */
export function looksLikePastedToken(value: string): boolean {
  return (
    value.length >= TOKEN_MIN_LENGTH &&
    /[a-z]/.test(value) &&
    /[A-Z]/.test(value) &&
    /[0-9]/.test(value)
  );
}

/** The problem for a `token_env` that holds a token instead of a variable's name. */
export const PASTED_TOKEN_PROBLEM =
  'looks like a token, not the name of an environment variable; put the token in a variable (export NAME="…") and write NAME here';
