import {
  createStdioTransport,
  type StdioTransport,
  type StdioTransportConfig,
} from "@awr/transport-stdio";
import { MISBEHAVING_SERVER } from "./processes.js";

/** Tracks transports a test opened so afterEach can close them all (no child outlives a test). */
export class TransportPool {
  readonly #open: StdioTransport[] = [];

  /**
   * A transport to the misbehaving fixture with `flags`, not yet connected. The close grace is
   * short because several tests close while the fixture still has timers running.
   */
  misbehaving(flags: string[] = [], config: Partial<StdioTransportConfig> = {}): StdioTransport {
    return this.track(
      createStdioTransport({
        command: process.execPath,
        args: [MISBEHAVING_SERVER, ...flags],
        name: "misbehaving",
        closeGraceMs: 200,
        ...config,
      }),
    );
  }

  track(transport: StdioTransport): StdioTransport {
    this.#open.push(transport);
    return transport;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.#open.splice(0).map((transport) => transport.close()));
  }
}

/** Collects what a transport reports through onError. */
export function collectErrors(transport: StdioTransport): Error[] {
  const errors: Error[] = [];
  transport.onError = (error) => errors.push(error);
  return errors;
}
