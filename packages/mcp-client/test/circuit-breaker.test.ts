import { backoffDelay, CircuitBreaker, CircuitState, DEFAULT_BACKOFF } from "@awr/mcp-client";
import { describe, expect, it } from "vitest";

function clockedBreaker(options: ConstructorParameters<typeof CircuitBreaker>[0] = {}) {
  const clock = { now: 0 };
  const breaker = new CircuitBreaker({ ...options, now: () => clock.now });
  return { breaker, clock };
}

describe("circuit breaker", () => {
  it("opens after N consecutive failures spanning openAfterMs, half-opens once, closes on a good probe", () => {
    const { breaker, clock } = clockedBreaker({
      failureThreshold: 3,
      openAfterMs: 1_000,
      cooldownMs: 5_000,
    });
    breaker.recordFailure();
    breaker.recordFailure();
    breaker.recordFailure();
    // Three fast failures: still within openAfterMs, so a quick restart never opens it.
    expect(breaker.state).toBe(CircuitState.Closed);
    clock.now = 1_000;
    breaker.recordFailure();
    expect(breaker.state).toBe(CircuitState.Open);
    expect(breaker.tryAttempt()).toBe(false);
    expect(breaker.msUntilAttempt()).toBe(5_000);
    clock.now = 6_000;
    expect(breaker.state).toBe(CircuitState.HalfOpen);
    expect(breaker.tryAttempt()).toBe(true);
    expect(breaker.tryAttempt()).toBe(false);
    breaker.recordSuccess();
    expect(breaker.state).toBe(CircuitState.Closed);
    expect(breaker.consecutiveFailures).toBe(0);
  });

  it("a success clears the failures counted so far", () => {
    const { breaker, clock } = clockedBreaker({ failureThreshold: 2, openAfterMs: 0 });
    breaker.recordFailure();
    breaker.recordSuccess();
    clock.now = 60_000;
    breaker.recordFailure();
    expect(breaker.state).toBe(CircuitState.Closed);
    expect(breaker.consecutiveFailures).toBe(1);
    breaker.recordFailure();
    expect(breaker.state).toBe(CircuitState.Open);
  });

  it("grows the cool-down after each failed probe, up to its cap, and resets it on success", () => {
    const { breaker, clock } = clockedBreaker({
      failureThreshold: 1,
      openAfterMs: 0,
      cooldownMs: 100,
      cooldownFactor: 2,
      maxCooldownMs: 300,
    });
    breaker.recordFailure();
    const cooldowns = [];
    for (let probe = 0; probe < 4; probe++) {
      cooldowns.push(breaker.msUntilAttempt());
      clock.now += breaker.msUntilAttempt();
      expect(breaker.tryAttempt()).toBe(true);
      breaker.recordFailure();
    }
    expect(cooldowns).toEqual([100, 200, 300, 300]);
    clock.now += breaker.msUntilAttempt();
    expect(breaker.tryAttempt()).toBe(true);
    breaker.recordSuccess();
    breaker.recordFailure();
    expect(breaker.msUntilAttempt()).toBe(100);
  });
});

describe("backoff", () => {
  it("grows exponentially up to the cap, with bounded jitter", () => {
    const options = { ...DEFAULT_BACKOFF, initialDelayMs: 100, jitter: 0 };
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, options))).toEqual([100, 200, 400, 800]);
    expect(backoffDelay(20, { ...options, maxDelayMs: 1_000 })).toBe(1_000);
    expect(backoffDelay(1, { ...options, jitter: 0.5 }, () => 0)).toBe(50);
    expect(backoffDelay(1, { ...options, jitter: 0.5 }, () => 1)).toBe(100);
  });
});
