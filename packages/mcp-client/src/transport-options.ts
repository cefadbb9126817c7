import type { HttpTransportConfig } from "@awr/transport-http";
import type { StdioTransportConfig } from "@awr/transport-stdio";

/** Options of the stdio transport that a server config does not carry (see StdioTransportConfig). */
export type StdioTransportOptions = Omit<
  StdioTransportConfig,
  "command" | "args" | "env" | "cwd" | "timeout" | "name"
>;

/** Options of the HTTP transports that a server config does not carry (see HttpTransportConfig). */
export type HttpTransportOptions = Omit<
  HttpTransportConfig,
  "url" | "type" | "headers" | "timeout"
>;

/**
 * Everything createTransport passes on to the transport it builds: every option of the stdio
 * transport (`maxFrameBytes`, `killGraceMs`, `inheritEnv`, `onStderr`…) and of the HTTP
 * transports (`listen`, `getToken`, `reconnect`, `maxBodyBytes`, `fetch`…); each transport takes
 * its own and ignores the other's.
 */
export interface CreateTransportOptions extends StdioTransportOptions, HttpTransportOptions {
  /** Default request timeout of the transport, in milliseconds. */
  timeout?: number;
  /** The server's name in the transport's error messages. */
  name?: string;
}
