import { LedgerError } from "../errors.js";
import { isPublicDefinition } from "./definitions.js";
import { secretFieldKind } from "./field-names.js";
import { findSecret } from "./find-secret.js";
import type { SecretCategory, ValueSecretFinding } from "./policy.js";
import { hasStructuredValue } from "./values.js";

/** Deeper nesting than any tool input or parsed source needs; refused rather than half-checked. */
export const MAX_VALUE_DEPTH = 64;
/** Strings, numbers, keys and containers visited in one value; refused beyond. */
export const MAX_VALUE_NODES = 200_000;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_SHOWN_KEY = 64;

/** The path of a member whose key was already found clean. */
function memberPath(path: string, key: string): string {
  if (key.length > MAX_SHOWN_KEY) return `${path}.*`;
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

const clean = (text: string): boolean => findSecret(text) === undefined;

/** A field whose name declares a secret and whose value is neither empty nor a definition. */
function fieldCategory(key: string, value: unknown): SecretCategory | undefined {
  const kind = secretFieldKind(key);
  if (kind === undefined || !hasStructuredValue(value)) return undefined;
  if (kind === "env" && (typeof value !== "object" || value === null)) return undefined;
  if (isPublicDefinition(value, clean)) return undefined;
  return kind === "env"
    ? "env_block"
    : kind === "private_prompt"
      ? "private_prompt"
      : "labelled_value";
}

/**
 * The first secret in a JSON-like value (tool arguments, an event payload, a parsed YAML or TOML
 * document): every string is scanned, every key is scanned, and a field named like a secret
 * (`password`, `apiKey`, `client_secret`, `env: {…}`) with a non-empty value is a finding
 * whatever the value's type, unless the value is a schema definition. `root` names the value
 * in the reported path. Only arrays and objects are walked.
 *
 * Throws InvalidInput when the value nests deeper than MAX_VALUE_DEPTH or holds more than
 * MAX_VALUE_NODES nodes (or is cyclic): such input is refused, never passed half-checked.
 */
export function findSecretInValue(value: unknown, root = "$"): ValueSecretFinding | undefined {
  let visited = 0;
  const walk = (node: unknown, path: string, depth: number): ValueSecretFinding | undefined => {
    if (++visited > MAX_VALUE_NODES) {
      throw new LedgerError(
        "InvalidInput",
        `${root} holds more than ${MAX_VALUE_NODES} values; send less per call`,
        { path: root, limit: MAX_VALUE_NODES },
      );
    }
    if (typeof node === "string") {
      const found = findSecret(node);
      return found === undefined
        ? undefined
        : { category: found.category, path, in: "value", line: found.line, column: found.column };
    }
    if (typeof node !== "object" || node === null) return undefined;
    if (depth >= MAX_VALUE_DEPTH) {
      throw new LedgerError(
        "InvalidInput",
        `${path} nests deeper than ${MAX_VALUE_DEPTH} levels; flatten it`,
        { path, limit: MAX_VALUE_DEPTH },
      );
    }
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const found = walk(node[i], `${path}[${i}]`, depth + 1);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    for (const [key, inner] of Object.entries(node)) {
      visited++;
      const inKey = findSecret(key);
      if (inKey !== undefined) return { category: inKey.category, path, in: "key" };
      const field = fieldCategory(key, inner);
      const at = memberPath(path, key);
      if (field !== undefined) return { category: field, path: at, in: "value" };
      const found = walk(inner, at, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return walk(value, root, 0);
}
