import type { Knex } from 'knex';
import { describe, expect, it } from 'vitest';
import type { ThumbnailCapturer } from '../services/thumbnail-capturer.ts';
import { loadScreenshotStates, type ThumbnailStateRow } from './thumbnails.ts';

describe('loadScreenshotStates', () => {
  it('never pairs a row read before a capture ended with "not in flight" (the caller would stop waiting on the old outcome)', async () => {
    const before: ThumbnailStateRow = { project_id: 7, captured_at: '2026-11-26T10:00:00Z', last_error: null, last_attempt_at: '2026-11-26T10:00:00Z' };
    let captureRunning = true;
    // The read returns the row as it was; the capture writes its outcome and ends while the read is on its way back.
    const knex = (() => ({
      whereIn: () => ({
        select: async () => {
          const rows = [before];
          captureRunning = false;
          return rows;
        },
      }),
    })) as unknown as Knex;
    const capturer = { isInFlight: () => captureRunning } as unknown as ThumbnailCapturer;

    const state = (await loadScreenshotStates(knex, capturer, [7])).get(7);
    expect(state).toEqual({ projectId: 7, capturedAt: '2026-11-26T10:00:00.000Z', lastAttemptAt: '2026-11-26T10:00:00.000Z', lastError: null, inFlight: true });
  });
});
