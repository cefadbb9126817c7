import { backoffDelay, CircuitBreaker, CircuitState } from "@awr/mcp-client";
import { describe, expect, it } from "vitest";

describe("circuit breaker", () => {
  it("opens after N failures in the window, half-opens after the cool-down, and closes on a good trial", () => {
    let now = 0;
    const breaker = new CircuitBreaker({
      failureThreshold: 3,
      windowMs: 1_000,
      cooldownMs: 5_000,
      now: () => now,
    });
    breaker.recordFailure();
    breaker.recordFailure();
    expect(breaker.state).toBe(CircuitState.Closed);
    breaker.recordFailure();
    expect(breaker.state).toBe(CircuitState.Open);
    expect(breaker.tryAttempt()).toBe(false);
    expect(breaker.msUntilAttempt()).toBe(5_000);
    now = 5_000;
    expect(breaker.state).toBe(CircuitState.HalfOpen);
    expect(breaker.tryAttempt()).toBe(true);
    expect(breaker.tryAttempt()).toBe(false);
    breaker.recordSuccess();
    expect(breaker.state).toBe(CircuitState.Closed);
    expect(breaker.recentFailures).toBe(0);
  });

  it("re-opens when the half-open trial fails", () => {
    let now = 0;
    const breaker = new CircuitBreaker({ failureThreshold: 1, cooldownMs: 100, now: () => now });
    breaker.recordFailure();
    now = 100;
    expect(breaker.tryAttempt()).toBe(true);
    breaker.recordFailure();
    expect(breaker.state).toBe(CircuitState.Open);
    expect(breaker.msUntilAttempt()).toBe(100);
  });

  it("forgets failures older than the window, but not because of a success", () => {
    let now = 0;
    const breaker = new CircuitBreaker({ failureThreshold: 2, windowMs: 1_000, now: () => now });
    breaker.recordFailure();
    breaker.recordSuccess();
    now = 500;
    breaker.recordFailure();
    expect(breaker.state).toBe(CircuitState.Open);
    const other = new CircuitBreaker({ failureThreshold: 2, windowMs: 1_000, now: () => now });
    other.recordFailure();
    now = 2_000;
    other.recordFailure();
    expect(other.state).toBe(CircuitState.Closed);
  });
});

describe("backoff", () => {
  it("grows exponentially up to the cap, with bounded jitter", () => {
    const fixed = () => 1;
    expect(
      [1, 2, 3, 4].map((n) => backoffDelay(n, { initialDelayMs: 100, jitter: 0 }, fixed)),
    ).toEqual([100, 200, 400, 800]);
    expect(backoffDelay(20, { initialDelayMs: 100, maxDelayMs: 1_000, jitter: 0 })).toBe(1_000);
    expect(backoffDelay(1, { initialDelayMs: 100, jitter: 0.5 }, () => 0)).toBe(50);
    expect(backoffDelay(1, { initialDelayMs: 100, jitter: 0.5 }, () => 1)).toBe(100);
  });
});
