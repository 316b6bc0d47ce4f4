/**
 * Signing a student straight into phpMyAdmin for one database (beyond the spec; deploy/phpmyadmin/):
 * the page's admin link, and the redeem of its one-time ticket by phpMyAdmin's signon script.
 */
import { z } from 'zod';
import { endpoint, json } from './endpoint.ts';
import { databaseIdParams } from './databases.ts';

/**
 * The sign-on page's browser nonce (the OAuth `state` way): 32 random bytes, base64url, which the
 * page on phpMyAdmin's origin keeps in its own cookie and hands to the control plane in the URL.
 */
export const SIGNON_STATE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

const STATE_MESSAGE = 'Dit is geen geldige aanmelding bij het databasebeheer. Open het opnieuw vanaf je databasespagina.';

/** What phpMyAdmin's signon script gets for a redeemed ticket: the database's account. */
export const signonCredentialsJson = z.strictObject({
  user: z.string(),
  password: z.string(),
  host: z.string(),
  port: z.number().int(),
  db: z.string(),
});
export type SignonCredentialsJson = z.infer<typeof signonCredentialsJson>;

export const databaseAdminLink = endpoint({
  method: 'GET',
  path: '/api/user/databases/:id/admin',
  access: 'developer',
  refusal: 'Databases zijn alleen voor ontwikkelaars.',
  summary:
    "The owner's admin link of one database (no-store): without phpMyAdmin's sign-on the spec's `{DB_ADMIN_URL}?db={name}&link=true`; with it first to the sign-on page (`?database={id}`), which sends the browser back with its nonce (`state`), then to the sign-on page with a one-minute ticket bound to the database, the owner's sign-in and that nonce. Someone else's database: 404.",
  params: databaseIdParams,
  /** The nonce the sign-on page keeps in its own cookie; without it the route sends the browser to that page first. */
  query: z.object({
    state: z.string({ error: STATE_MESSAGE }).regex(SIGNON_STATE_PATTERN, STATE_MESSAGE).optional(),
  }),
  answer: { kind: 'redirect' },
});

export const redeemSignonTicket = endpoint({
  method: 'POST',
  path: '/api/db-admin/signon',
  access: 'machine',
  summary:
    "phpMyAdmin's signon script redeems a ticket server to server (Authorization: Bearer <shared secret>, else 401; 501 while the sign-on is off) with the nonce of its cookie: once, for the database's account (no-store). Unknown, used, expired or another browser's: 404.",
  body: z.object({
    token: z.string({ error: 'Geef het ticket mee.' }).min(1, 'Geef het ticket mee.').max(200, 'Dit is geen geldig ticket.'),
    state: z.string({ error: 'Geef de aanmeldcode van de browser mee.' }).min(1, 'Geef de aanmeldcode van de browser mee.').max(200, 'Dit is geen geldige aanmeldcode.'),
  }),
  answer: json(signonCredentialsJson),
});

export const dbAdminEndpoints = [databaseAdminLink, redeemSignonTicket];
