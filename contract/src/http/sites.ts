/** The websites wall (spec §2 Websites, §3 Site): public, like /websites itself. */
import { z } from 'zod';
import { siteJson } from '../projects.ts';
import { endpoint, json } from './endpoint.ts';

export const siteWall = endpoint({
  method: 'GET',
  path: '/api/sites',
  access: 'public',
  summary:
    'Every visible project of an approved request with its members, the same for every viewer: compressed once per data version (brotli or gzip), revalidated by a strong ETag (304).',
  answer: json(z.array(siteJson)),
});

export const siteEndpoints = [siteWall];
