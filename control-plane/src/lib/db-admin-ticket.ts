import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A ticket lives this long: the browser goes straight from the click to the signon script. */
export const SIGNON_TICKET_TTL_MS = 60_000;

/** What db_admin_signons keeps of a used ticket. */
export const ticketHashOf = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Tickets are 32 bytes, base64url: 43 characters (the signon script checks that shape). */
export const TICKET_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const TICKET_BYTES = 32;
const MAC_BYTES = 20;

const macOf = (key: Buffer, body: Buffer): Buffer => createHmac('sha256', key).update('devplein-db-admin-ticket').update(body).digest().subarray(0, MAC_BYTES);

/**
 * A new one-time ticket for the database's admin sign-on. It is stateless, so the admin link (a
 * GET) writes nothing: database id, expiry (seconds) and a random nonce, signed with `key`
 * (HMAC-SHA-256, 160 bits kept). Its single use is recorded when it is redeemed.
 */
export function mintSignonTicket(key: Buffer, database: { id: number }, now = new Date()): string {
  const body = Buffer.alloc(TICKET_BYTES - MAC_BYTES);
  body.writeUInt32BE(database.id, 0);
  body.writeUInt32BE(Math.floor((now.getTime() + SIGNON_TICKET_TTL_MS) / 1000), 4);
  randomBytes(4).copy(body, 8);
  return Buffer.concat([body, macOf(key, body)]).toString('base64url');
}

/** The database id of a ticket with a valid signature that has not expired; undefined otherwise. */
export function readTicket(key: Buffer, token: string, now: Date): { databaseId: number; expiresAt: Date } | undefined {
  if (!TICKET_PATTERN.test(token)) return undefined;
  const bytes = Buffer.from(token, 'base64url');
  // One spelling per ticket: the unused low bits of the last character must not make four.
  if (bytes.length !== TICKET_BYTES || bytes.toString('base64url') !== token) return undefined;
  const body = bytes.subarray(0, TICKET_BYTES - MAC_BYTES);
  if (!timingSafeEqual(bytes.subarray(TICKET_BYTES - MAC_BYTES), macOf(key, body))) return undefined;
  const expiresAt = new Date(body.readUInt32BE(4) * 1000);
  if (expiresAt.getTime() <= now.getTime()) return undefined;
  return { databaseId: body.readUInt32BE(0), expiresAt };
}

/** The signon script's shared secret, compared in constant time. */
export function isSignonSecret(presented: string | undefined, secret: string): boolean {
  if (!presented) return false;
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(secret).digest();
  return timingSafeEqual(a, b);
}
