import { describe, expect, it } from 'vitest';
import { certificateStatus, diskLevel } from './status.ts';

const now = new Date('2026-11-27T12:00:00Z');
const inDays = (days: number): Date => new Date(now.getTime() + days * 86_400_000);

describe('certificateStatus', () => {
  it('is ok more than 30 days ahead, a warning from 30 days on, bad once ended', () => {
    expect(certificateStatus(inDays(31), now, 'CN=a')).toEqual({ notAfter: inDays(31).toISOString(), daysLeft: 31, level: 'ok', detail: 'CN=a' });
    expect(certificateStatus(inDays(30.5), now, '')).toMatchObject({ daysLeft: 30, level: 'warning' });
    expect(certificateStatus(inDays(12.2), now, '')).toMatchObject({ daysLeft: 12, level: 'warning' });
    expect(certificateStatus(inDays(0.1), now, '')).toMatchObject({ daysLeft: 0, level: 'warning' });
    expect(certificateStatus(now, now, '')).toMatchObject({ level: 'bad' });
    expect(certificateStatus(inDays(-3), now, '')).toMatchObject({ daysLeft: -3, level: 'bad' });
  });

  it('is bad without a readable end', () => {
    expect(certificateStatus(null, now, 'niet te lezen')).toEqual({ notAfter: null, daysLeft: null, level: 'bad', detail: 'niet te lezen' });
    expect(certificateStatus(new Date('nonsense'), now, '')).toMatchObject({ level: 'bad', notAfter: null });
  });
});

describe('diskLevel', () => {
  it('judges by the free share: warning below 15 %, bad below 5 % or unmeasured', () => {
    expect(diskLevel({ ok: true, totalBytes: 100, availableBytes: 15 })).toBe('ok');
    expect(diskLevel({ ok: true, totalBytes: 100, availableBytes: 14 })).toBe('warning');
    expect(diskLevel({ ok: true, totalBytes: 100, availableBytes: 5 })).toBe('warning');
    expect(diskLevel({ ok: true, totalBytes: 100, availableBytes: 4 })).toBe('bad');
    expect(diskLevel({ ok: false, totalBytes: 0, availableBytes: 0 })).toBe('bad');
  });
});
