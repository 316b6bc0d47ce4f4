import { defaultClientConditions, defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';
import { SummaryLineReporter } from './tests/support/summary-line-reporter.ts';

// Workspace packages resolve to their TypeScript sources through the `development` condition.
const conditions = (defaults: readonly string[]): string[] => ['development', ...defaults];

/**
 * `npm run test:ops`, and the last step of `npm test`: the operations tests in tests/ops (fresh
 * Debian 12 and 13 servers booted with systemd, install.sh, upgrades with the real release bundle,
 * the packages npm start and npm test install). No global setup: a test that needs PostgreSQL
 * starts its own throwaway cluster (tests/support/services/database.ts).
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
    // Two servers at once: their installs wait on dpkg and the disk as much as on the two cores.
    maxWorkers: 2,
    reporters: ['default', new SummaryLineReporter()],
  },
});
