/**
 * The teachers' overview (/admin/overzicht, issue 22), admins only: host samples, idle auto-stops
 * and projects per cohort read from PostgreSQL, and the top containers asked of the agents.
 */
import { z } from 'zod';
import {
  OVERVIEW_DEFAULT_DAYS,
  OVERVIEW_DEFAULT_HOURS,
  OVERVIEW_MAX_DAYS,
  OVERVIEW_MAX_HOURS,
  overviewAutoStopsJson,
  overviewCohortsJson,
  overviewHostsJson,
  overviewTopContainersJson,
} from '../overview.ts';
import { endpoint, json } from './endpoint.ts';

/** A whole number from a query string within [1, max] ('' counts as absent). */
const wholeNumber = (message: string, max: number) =>
  z.preprocess(
    (value) => (value === '' ? undefined : typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : value),
    z.number({ error: message }).int(message).min(1, message).max(max, message),
  );

export const overviewHosts = endpoint({
  method: 'GET',
  path: '/api/admin/overview/hosts',
  access: 'admin',
  summary: 'Per linked dev server its samples of the last `hours` (1-minute resolution) as chart columns, and its containers by state at the latest sample.',
  query: z.object({
    hours: wholeNumber(`Kies 1 tot en met ${OVERVIEW_MAX_HOURS} uur.`, OVERVIEW_MAX_HOURS).default(OVERVIEW_DEFAULT_HOURS),
  }),
  answer: json(overviewHostsJson),
});

export const overviewAutoStops = endpoint({
  method: 'GET',
  path: '/api/admin/overview/auto-stops',
  access: 'admin',
  summary: 'Idle auto-stops per school day of the last `days`, the days without stops included.',
  query: z.object({
    days: wholeNumber(`Kies 1 tot en met ${OVERVIEW_MAX_DAYS} dagen.`, OVERVIEW_MAX_DAYS).default(OVERVIEW_DEFAULT_DAYS),
  }),
  answer: json(overviewAutoStopsJson),
});

export const overviewCohorts = endpoint({
  method: 'GET',
  path: '/api/admin/overview/cohorts',
  access: 'admin',
  summary: 'Projects per cohort of their first member, approved and not.',
  answer: json(overviewCohortsJson),
});

export const overviewTopContainers = endpoint({
  method: 'GET',
  path: '/api/admin/overview/top-containers',
  access: 'admin',
  summary:
    'Per dev server the 10 running containers using the most CPU and the most memory now, with their project and owner (the agents asked at once; one that does not answer is `unavailable`, one older than contract 1.6.0 `too-old`).',
  answer: json(overviewTopContainersJson),
});

export const adminOverviewEndpoints = [overviewHosts, overviewAutoStops, overviewCohorts, overviewTopContainers];
