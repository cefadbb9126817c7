import { detectionText } from "./normalise.js";

/**
 * Field names that declare their value a secret, for structured input (JSON tool arguments,
 * parsed YAML/TOML). Matching ignores case, spaces, `_` and `-`, and splits camelCase, so
 * `apiKey`, `API_KEY`, `api-key` and `ＡＰＩ＿ＫＥＹ` are one name.
 */

const SECRET_NAMES = new Set([
  "apikey",
  "accesstoken",
  "refreshtoken",
  "idtoken",
  "clientsecret",
  "password",
  "passwd",
  "pwd",
  "secret",
  "token",
  "authorization",
  "privateprompt",
  "密码",
  "密碼",
  "口令",
  "令牌",
  "密钥",
  "密鑰",
  "私有提示词",
  "私有提示詞",
  "私有prompt",
]);

/** `<anything>_api_key`, `<anything>_token`, … once separators are folded to `_`. */
const SECRET_SUFFIXES = [
  "_api_key",
  "_access_token",
  "_refresh_token",
  "_client_secret",
  "_password",
  "_passwd",
  "_secret",
  "_token",
];

const ENV_NAMES = new Set([
  "env",
  "environment",
  "environmentvariables",
  "environmentvars",
  "environmentdump",
  "环境变量",
  "環境變數",
]);

function snakeName(name: string): string {
  return detectionText(name)
    .text.replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
}

const compact = (snake: string): string => snake.replace(/_/g, "");

export type SecretFieldKind = "secret" | "private_prompt" | "env";

/** What a field of this name declares its value to be, if anything. */
export function secretFieldKind(name: string): SecretFieldKind | undefined {
  if (name.length > 256) return undefined;
  const snake = snakeName(name);
  const flat = compact(snake);
  if (ENV_NAMES.has(flat)) return "env";
  if (SECRET_NAMES.has(flat) || SECRET_SUFFIXES.some((suffix) => snake.endsWith(suffix))) {
    return flat.endsWith("prompt") || flat.startsWith("私有") ? "private_prompt" : "secret";
  }
  return undefined;
}
