import { z } from 'zod';
import { STATE_PATTERN } from '../../lib/db-admin-ticket.ts';

const STATE_MESSAGE = 'Dit is geen geldige aanmelding bij het databasebeheer. Open het opnieuw vanaf je databasespagina.';

/**
 * GET /api/user/databases/{id}/admin?state=…: the sign-on page on phpMyAdmin's origin sends the
 * browser here with the nonce it keeps in its own cookie. Without it the route sends the browser
 * to that page first.
 */
export const adminLinkQuery = z.object({
  state: z.string({ error: STATE_MESSAGE }).regex(STATE_PATTERN, STATE_MESSAGE).optional(),
});

/** POST /api/db-admin/signon: the ticket phpMyAdmin's signon script got in its URL, and the nonce of its cookie. */
export const signonRedeemBody = z.object({
  token: z.string({ error: 'Geef het ticket mee.' }).min(1, 'Geef het ticket mee.').max(200, 'Dit is geen geldig ticket.'),
  state: z.string({ error: 'Geef de aanmeldcode van de browser mee.' }).min(1, 'Geef de aanmeldcode van de browser mee.').max(200, 'Dit is geen geldige aanmeldcode.'),
});
