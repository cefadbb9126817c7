import { LIMITS } from "./limits.js";

/**
 * The JSON Schema subset the operation catalog uses for tool inputs, and builders that keep the
 * schemas short. The catalog's schemas are the contract itself: tools/list sends them as they
 * are, and validate-input.ts checks every call against them (see docs/design/operation-catalog.md).
 */
export type JsonType = "string" | "integer" | "number" | "boolean" | "object" | "array" | "null";

export type JsonSchema = {
  type?: JsonType | readonly JsonType[];
  description?: string;
  enum?: readonly (string | null)[];
  const?: string | number | boolean;
  default?: string | number | boolean;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  /** UTF-8 bytes (see validate-input.ts): never accepts more than a character count would. */
  maxLength?: number;
  pattern?: string;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  properties?: Readonly<Record<string, JsonSchema>>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  maxProperties?: number;
  propertyNames?: JsonSchema;
  anyOf?: readonly JsonSchema[];
  /** Listed only (tools/list); the gate checks such an argument by its `checked` schema. */
  oneOf?: readonly JsonSchema[];
};

/** A tool's input: always an object that refuses unknown arguments. */
export type ObjectSchema = JsonSchema & {
  type: "object";
  properties: Readonly<Record<string, JsonSchema>>;
  required?: string[];
  additionalProperties: false;
};

export function object(
  properties: Readonly<Record<string, JsonSchema>>,
  required: string[] = [],
  extra: Pick<JsonSchema, "anyOf" | "description"> = {},
): ObjectSchema {
  return {
    type: "object",
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
    ...extra,
  };
}

/**
 * `schema` with a description: what the argument means, in the few words tools/list can afford
 * (every argument has one; the whole list stays under 32 KiB).
 */
export const about = <S extends JsonSchema>(description: string, schema: S): S => ({
  ...schema,
  description,
});

/** Makes a schema also accept null (which the validator treats as "omitted"). */
export function nullable<S extends JsonSchema>(schema: S): S {
  const type = schema.type === undefined ? [] : [schema.type].flat();
  return { ...schema, type: [...type, "null"] as JsonType[] };
}

/** An identifier: work key, session, wait, claim or checkpoint id, conversation, agent name. */
export const id = (): JsonSchema => ({ type: "string", maxLength: LIMITS.idBytes });

/** Free text written by a person or an agent. */
export const text = (): JsonSchema => ({ type: "string", maxLength: LIMITS.textBytes });

/** A list of short strings (paths, tags, keys, loops). */
export const strings = (): JsonSchema => ({
  type: "array",
  items: { type: "string", maxLength: LIMITS.itemBytes },
  maxItems: LIMITS.listItems,
});

export const revision = (): JsonSchema => ({
  type: "integer",
  minimum: 0,
  maximum: LIMITS.revisionMax,
});

/** An integer within one of the LIMITS ranges, with the range's default when it has one. */
export const bounded = (range: {
  readonly min: number;
  readonly max: number;
  readonly default?: number;
}): JsonSchema => ({
  type: "integer",
  minimum: range.min,
  maximum: range.max,
  ...(range.default === undefined ? {} : { default: range.default }),
});

export const limit = (): JsonSchema => ({ description: "Max results.", ...bounded(LIMITS.limit) });

export const ttlMs = (): JsonSchema =>
  nullable({
    type: "integer",
    minimum: LIMITS.ttlMs.min,
    maximum: LIMITS.ttlMs.max,
    description: "Claim lifetime in ms; omit: no expiry.",
  });

/** Work-branch selection: null or omitted = the selected default, "main" = the baseline. */
export const branch = (): JsonSchema => ({
  type: ["string", "null"],
  maxLength: LIMITS.idBytes,
  description: "Work branch name or id; omit: current, main: baseline.",
});

export const choice = (values: readonly string[]): JsonSchema => ({
  type: "string",
  enum: values,
});

/** Requires one of `session` / `conversation` (the session selectors). */
export const SESSION_SELECTOR: Pick<JsonSchema, "anyOf"> = {
  anyOf: [{ required: ["session"] }, { required: ["conversation"] }],
};
