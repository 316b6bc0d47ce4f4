import { writeFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

interface TestCounts {
  passed: number;
  failed: number;
  skipped: number;
  /** What failed, `file > test: first line of the error`, so a CI log's tail names it. */
  failures: string[];
}

function firstLine(message: string | undefined): string {
  return (message ?? '').split('\n', 1)[0]!.slice(0, 500);
}

/**
 * Prints `N passed, N failed, N skipped` alone on a line at the end of a run: CI reads that
 * line. A file that failed outside any test (import error, failing hook) and every unhandled
 * error count as one failure each, so the line never says "0 failed" for a red run. With
 * DEVPLEIN_TEST_SUMMARY_FILE set, the counts are also written there as JSON (scripts/test.ts
 * prints the line again as the very last one, after the global teardown's output).
 */
export class SummaryLineReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    const counts: TestCounts = { passed: 0, failed: 0, skipped: 0, failures: [] };
    for (const testModule of testModules) {
      let failedTests = 0;
      for (const test of testModule.children.allTests()) {
        const result = test.result();
        if (result.state === 'passed') counts.passed += 1;
        else if (result.state === 'failed') {
          failedTests += 1;
          const pages = test.meta().openPages;
          counts.failures.push(`${testModule.moduleId.replace(`${process.cwd()}/`, '')} > ${test.fullName}: ${firstLine(result.errors[0]?.message)}${pages ? ` [pages: ${pages}]` : ''}`);
        } else counts.skipped += 1;
      }
      counts.failed += failedTests;
      if (failedTests === 0 && testModule.state() === 'failed') {
        counts.failed += 1;
        counts.failures.push(`${testModule.moduleId.replace(`${process.cwd()}/`, '')}: ${firstLine(testModule.errors()[0]?.message)}`);
      }
    }
    counts.failed += unhandledErrors.length;
    for (const error of unhandledErrors) counts.failures.push(`unhandled error: ${firstLine((error as { message?: string }).message ?? String(error))}`);
    const summaryFile = process.env.DEVPLEIN_TEST_SUMMARY_FILE;
    if (summaryFile) writeFileSync(summaryFile, JSON.stringify(counts));
    process.stdout.write(`\n${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  }
}
