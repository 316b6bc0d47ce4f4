/** How long to wait between attempts while something keeps failing. */
export interface BackoffPolicy {
  /** Delay after the first failure. */
  initialMs: number;
  /** Upper bound of the delay. */
  maxMs: number;
  /** Growth per further failure (default 2). */
  factor?: number;
  /**
   * Fraction of the delay taken off at random (0..1, default 0.2), so many clients that lost
   * the same agent do not retry in lock-step.
   */
  jitter?: number;
}

/**
 * Delay before the next attempt after `failures` consecutive failures (1 = the first):
 * initialMs * factor^(failures-1), capped at maxMs, minus up to `jitter` of it.
 */
export function backoffDelay(failures: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const factor = policy.factor ?? 2;
  const jitter = Math.min(Math.max(policy.jitter ?? 0.2, 0), 1);
  const exponent = Math.max(failures, 1) - 1;
  const raw = Math.min(policy.maxMs, policy.initialMs * factor ** exponent);
  return Math.round(raw * (1 - jitter * random()));
}
