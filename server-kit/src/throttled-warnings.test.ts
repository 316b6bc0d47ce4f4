import { describe, expect, it } from 'vitest';
import { ThrottledWarnings } from './throttled-warnings.ts';

function recorder() {
  const lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
  return { lines, logger: { warn: (fields: Record<string, unknown>, message: string) => void lines.push({ fields, message }) } };
}

describe('ThrottledWarnings', () => {
  it('says a lasting condition once a minute, with how often it came meanwhile', () => {
    let now = 0;
    const { lines, logger } = recorder();
    const warnings = new ThrottledWarnings(logger as never, 60_000, () => now);
    expect(warnings.warn('docker', { details: 'weg' }, 'Docker does not answer')).toBe(true);
    for (let second = 1; second < 60; second++) {
      now = second * 1000;
      expect(warnings.warn('docker', { details: 'weg' }, 'Docker does not answer')).toBe(false);
    }
    now = 60_000;
    expect(warnings.warn('docker', { details: 'weg' }, 'Docker does not answer')).toBe(true);
    expect(lines).toEqual([
      { fields: { details: 'weg' }, message: 'Docker does not answer (said again at most once a minute)' },
      { fields: { details: 'weg', timesSinceLastWarning: 59 }, message: 'Docker does not answer (said again at most once a minute)' },
    ]);
  });

  it('keeps conditions apart, and says one again at once after clear', () => {
    const { lines, logger } = recorder();
    const warnings = new ThrottledWarnings(logger as never, 60_000, () => 0);
    warnings.warn('docker', {}, 'Docker');
    warnings.warn('mariadb', {}, 'MariaDB');
    warnings.warn('docker', {}, 'Docker');
    warnings.clear('docker');
    warnings.warn('docker', {}, 'Docker');
    expect(lines.map((line) => line.message.split(' ')[0])).toEqual(['Docker', 'MariaDB', 'Docker']);
  });
});
