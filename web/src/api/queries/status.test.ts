import { describe, expect, it } from 'vitest';
import { certificateText, containerCountsText, humanBytes } from './status.ts';

describe('status page words', () => {
  it('writes sizes in decimal units with a Dutch decimal comma', () => {
    expect(humanBytes(12_400_000_000)).toBe('12,4 GB');
    expect(humanBytes(999)).toBe('999 bytes');
    expect(humanBytes(1_500_000)).toBe('1,5 MB');
    expect(humanBytes(2_000_000_000_000)).toBe('2 TB');
  });

  it('says how many days a certificate has left once it is within the warning', () => {
    expect(certificateText({ notAfter: '2026-12-09T12:00:00Z', daysLeft: 12, level: 'warning', detail: '' })).toBe('Certificaat verloopt over 12 dagen');
    expect(certificateText({ notAfter: '2026-11-28T12:00:00Z', daysLeft: 1, level: 'warning', detail: '' })).toBe('Certificaat verloopt over 1 dag');
    expect(certificateText({ notAfter: '2026-11-27T18:00:00Z', daysLeft: 0, level: 'warning', detail: '' })).toBe('Certificaat verloopt vandaag');
    expect(certificateText({ notAfter: '2029-03-01T12:00:00Z', daysLeft: 824, level: 'ok', detail: '' })).toBe('Certificaat geldig tot 1 mrt 2029');
    expect(certificateText({ notAfter: '2026-11-01T12:00:00Z', daysLeft: -26, level: 'bad', detail: '' })).toBe('Certificaat is verlopen op 1 nov 2026');
    expect(certificateText({ notAfter: null, daysLeft: null, level: 'bad', detail: '' })).toBe('Certificaat niet te lezen');
  });

  it('lists container states in Dutch, known ones first', () => {
    expect(containerCountsText({ exited: 2, running: 3, weird: 1, paused: 0 })).toBe('3 actief, 2 gestopt, 1 weird');
    expect(containerCountsText({})).toBe('geen');
  });
});
