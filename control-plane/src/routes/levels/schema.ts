import { z } from 'zod';

const MAX_ID = 2_147_483_647;

/** A positive integer id in a path, with a Dutch message for anything else ('abc' → 422). */
const idParam = (message: string) =>
  z.coerce.number({ error: message }).int(message).positive(message).max(MAX_ID, message);

export const levelIdParams = z.object({ id: idParam('Ongeldig levelnummer.') });

export const courseFileIdParams = z.object({ fileId: idParam('Ongeldig bestandsnummer.') });
