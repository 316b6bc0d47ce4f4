import { z } from 'zod';

/** POST /api/db-admin/signon: the ticket phpMyAdmin's signon script got in its URL. */
export const signonRedeemBody = z.object({
  token: z.string({ error: 'Geef het ticket mee.' }).min(1, 'Geef het ticket mee.').max(200, 'Dit is geen geldig ticket.'),
});
