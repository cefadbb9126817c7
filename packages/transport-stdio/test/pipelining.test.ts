import { afterEach, describe, expect, it } from "vitest";
import { collectErrors, TransportPool } from "./helpers/misbehaving.js";

const pool = new TransportPool();
afterEach(() => pool.closeAll());

describe("pipelined requests", () => {
  it("correlates 10,000 pipelined requests whose responses come back shuffled", async () => {
    const count = 10_000;
    const transport = pool.misbehaving([`--shuffle=${count}`]);
    const errors = collectErrors(transport);
    await transport.connect();
    const requests = Array.from({ length: count }, (_, n) =>
      transport.request<{ n: number }>("echo", { n }),
    );
    const results = await Promise.all(requests);
    expect(results.every((result, n) => result.n === n)).toBe(true);
    expect(errors).toEqual([]);
    expect(transport.stats).toMatchObject({
      pending: 0,
      unknownResponses: 0,
      lateResponses: 0,
      malformedMessages: 0,
    });
  });
});
