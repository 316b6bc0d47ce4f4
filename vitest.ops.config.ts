import { defaultClientConditions, defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';
import { SummaryLineReporter } from './tests/support/summary-line-reporter.ts';

// Workspace packages resolve to their TypeScript sources through the `development` condition.
const conditions = (defaults: readonly string[]): string[] => ['development', ...defaults];

/**
 * `npm run test:ops`: the operations tests in tests/ops (install.sh upgrade with the real release
 * bundle), too slow for `npm test`'s CI budget. One file at a time: each builds a release. No
 * global setup: a test that needs PostgreSQL starts its own throwaway cluster (tests/support/database.ts).
 */
export default defineConfig({
  resolve: { conditions: conditions(defaultClientConditions) },
  ssr: { resolve: { conditions: conditions(defaultServerConditions) } },
  test: {
    include: ['tests/ops/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 900_000,
    teardownTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 1,
    reporters: ['default', new SummaryLineReporter()],
  },
});
