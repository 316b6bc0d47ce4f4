import { z } from 'zod';
import { OVERVIEW_DEFAULT_DAYS, OVERVIEW_DEFAULT_HOURS, OVERVIEW_MAX_DAYS, OVERVIEW_MAX_HOURS } from '@devplein/contract/overview';

/** A whole number from a query string within [1, max] ('' counts as absent). */
const wholeNumber = (message: string, max: number) =>
  z.preprocess(
    (value) => (value === '' ? undefined : typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : value),
    z.number({ error: message }).int(message).min(1, message).max(max, message),
  );

/** GET /api/admin/overview/hosts?hours= */
export const hostsQuery = z.object({
  hours: wholeNumber(`Kies 1 tot en met ${OVERVIEW_MAX_HOURS} uur.`, OVERVIEW_MAX_HOURS).default(OVERVIEW_DEFAULT_HOURS),
});

/** GET /api/admin/overview/auto-stops?days= */
export const autoStopsQuery = z.object({
  days: wholeNumber(`Kies 1 tot en met ${OVERVIEW_MAX_DAYS} dagen.`, OVERVIEW_MAX_DAYS).default(OVERVIEW_DEFAULT_DAYS),
});
