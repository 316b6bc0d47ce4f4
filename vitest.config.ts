import { defaultClientConditions, defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';
import { SummaryLineReporter } from './tests/support/summary-line-reporter.ts';

// Workspace packages resolve to their TypeScript sources through the `development` condition.
const conditions = (defaults: readonly string[]): string[] => ['development', ...defaults];

export default defineConfig({
  resolve: { conditions: conditions(defaultClientConditions) },
  ssr: { resolve: { conditions: conditions(defaultServerConditions) } },
  test: {
    include: ['**/*.test.ts', '**/*.test.tsx'],
    // tests/ops: the slower operations suite, `npm run test:ops` (vitest.ops.config.ts).
    exclude: ['**/node_modules/**', '**/dist/**', '.tmp/**', 'data/**', 'tests/ops/**'],
    globalSetup: ['tests/support/global-setup.ts'],
    // A failed browser test saves and describes its open pages.
    setupFiles: ['tests/support/pages-on-failure.ts'],
    // Integration tests start real processes; browser tests drive Chromium.
    testTimeout: 30_000,
    // expect.poll waits for a condition (a page's list after a filter, a card's state); vitest's
    // own budget of 1 s is less than a fetch and a render take on a loaded two-core machine
    // (the audit e2e's filter failed so under a busy core). The test's own timeout still bounds it.
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    pool: 'forks',
    // Two cores: more than two files at once (each may run a control plane and a Chromium)
    // only makes everything slower and timing-sensitive.
    maxWorkers: 2,
    reporters: ['default', new SummaryLineReporter()],
  },
});
