import type { ObjectSchema } from "./json-schema.js";

/** `stdio` serves one project to one local client; `http` is the shared service. */
export type ServerMode = "stdio" | "http";

/** A tools/list entry: name, description, input schema, annotations (docs/compatibility). */
export type ToolDefinition = {
  name: string;
  description: string;
  inputSchema: ObjectSchema;
  annotations: {
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: false;
  };
};
