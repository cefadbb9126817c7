import type { ValidateFunction } from "ajv";
import { MCPClientError, MCPClientErrorCode } from "../client-errors.js";
import type { CallToolResult, Tool } from "../mcp-types.js";

/** JSON Schema dialect the 2025-11-25 revision names as the default for tool schemas. */
const DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";

type Compile = (schema: Record<string, unknown>) => ValidateFunction;

let compilers: Promise<{ draft7: Compile; draft2020: Compile }> | undefined;

/** ajv is loaded on first use: most tools have no output schema, and a CLI starts faster. */
function loadCompilers(): Promise<{ draft7: Compile; draft2020: Compile }> {
  compilers ??= Promise.all([import("ajv"), import("ajv/dist/2020.js")]).then(
    ([draft7Module, draft2020Module]) => {
      const options = { strict: false, allErrors: false, validateFormats: false };
      const draft7 = new draft7Module.Ajv(options);
      const draft2020 = new draft2020Module.Ajv2020(options);
      return {
        draft7: (schema) => draft7.compile(schema),
        draft2020: (schema) => draft2020.compile(schema),
      };
    },
  );
  return compilers;
}

const validators = new WeakMap<object, ValidateFunction>();

/**
 * Checks a tool result against the tool's `outputSchema`, as the specification asks of clients
 * (and the SDK Client does): a successful result of a tool with an output schema must carry
 * `structuredContent` that conforms to it. Throws INVALID_RESULT naming the first mismatch;
 * results with `isError: true` and tools without a schema pass unchecked. Synchronous once the
 * tool's validator is compiled; only the first check of a schema returns a promise (ajv loads).
 */
export function checkStructuredContent(
  tool: Tool,
  result: CallToolResult,
): Promise<void> | undefined {
  const schema = tool.outputSchema;
  if (!schema || typeof schema !== "object" || result.isError === true) return undefined;
  if (result.structuredContent === undefined) {
    throw new MCPClientError(
      MCPClientErrorCode.InvalidResult,
      `tool "${tool.name}" has an output schema but returned no structuredContent`,
      { details: { tool: tool.name } },
    );
  }
  const validate = validators.get(schema);
  if (validate) return conform(tool, validate, result.structuredContent);
  return compile(tool, schema).then((compiled) =>
    conform(tool, compiled, result.structuredContent),
  );
}

async function compile(tool: Tool, schema: Record<string, unknown>): Promise<ValidateFunction> {
  const { draft7, draft2020 } = await loadCompilers();
  let validate: ValidateFunction;
  try {
    validate = (schema.$schema === DRAFT_2020_12 ? draft2020 : draft7)(schema);
  } catch (error) {
    throw new MCPClientError(
      MCPClientErrorCode.InvalidResult,
      `tool "${tool.name}" has an outputSchema that is not a valid JSON Schema: ${(error as Error).message}`,
      { cause: error, details: { tool: tool.name } },
    );
  }
  validators.set(schema, validate);
  return validate;
}

function conform(tool: Tool, validate: ValidateFunction, content: unknown): undefined {
  if (validate(content)) return undefined;
  const first = validate.errors?.[0];
  const where = first?.instancePath || "/";
  throw new MCPClientError(
    MCPClientErrorCode.InvalidResult,
    `tool "${tool.name}" returned structuredContent that does not match its outputSchema: ${where} ${first?.message ?? "is invalid"}`,
    { details: { tool: tool.name, errors: validate.errors ?? [] } },
  );
}
