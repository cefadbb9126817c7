export { DEFAULT_INHERITED_ENV_VARS, getDefaultEnvironment } from "./default-environment.js";
export { LineDecoder, type LineDecoderOptions, type OversizedFrame } from "./line-decoder.js";
export type { ProcessExit } from "./process-exit.js";
export {
  createStdioTransport,
  StdioTransport,
  type StdioTransportStats,
} from "./stdio-transport.js";
export {
  DEFAULT_CLOSE_GRACE_MS,
  DEFAULT_KILL_GRACE_MS,
  DEFAULT_MAX_FRAME_BYTES,
  DEFAULT_STDERR_BUFFER_BYTES,
  type StdioTransportConfig,
} from "./stdio-transport-config.js";
export { type WriteOptions, WriteQueue, type WriteQueueOptions } from "./write-queue.js";
