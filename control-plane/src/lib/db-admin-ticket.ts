import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { SIGNON_STATE_PATTERN } from '@devplein/contract/http/db-admin';

/** A ticket lives this long: the browser goes straight from the click to the signon script. */
export const SIGNON_TICKET_TTL_MS = 60_000;

/** What db_admin_signons keeps of a used ticket. */
export const ticketHashOf = (token: string): string => createHash('sha256').update(token).digest('hex');

/** The sign-on page's browser nonce: the contract's pattern (the admin link's `state` is checked with it too). */
export const STATE_PATTERN = SIGNON_STATE_PATTERN;

/** Tickets are 45 bytes, base64url: 60 characters (the signon script checks that shape). */
export const TICKET_PATTERN = /^[A-Za-z0-9_-]{60}$/;
const TICKET_BYTES = 45;
const MAC_BYTES = 20;
const BODY_BYTES = TICKET_BYTES - MAC_BYTES;

/** What a ticket is bound to: the database, its owner, the owner's sign-in (session) that made it. */
export interface TicketBinding {
  databaseId: number;
  userId: number;
  /** The session's `signedInAt` (ms since the epoch): which sign-in of the user made the ticket. */
  signedInAt: number;
}

const macOf = (key: Buffer, body: Buffer, state: string): Buffer =>
  createHmac('sha256', key)
    .update('devplein-db-admin-ticket-v2\0')
    .update(body)
    .update(createHash('sha256').update(state).digest())
    .digest()
    .subarray(0, MAC_BYTES);

/**
 * A new one-time ticket for the database's admin sign-on. It is stateless, so the admin link (a
 * GET) writes nothing: database id, owner id, expiry (seconds), the sign-in time of the session
 * that asked and a random nonce, signed with `key` (HMAC-SHA-256, 160 bits kept) together with
 * the SHA-256 of the browser's `state`: only the browser that holds that state in the sign-on
 * page's cookie can redeem it. Its single use is recorded when it is redeemed.
 */
export function mintSignonTicket(key: Buffer, binding: TicketBinding, state: string, now = new Date()): string {
  const body = Buffer.alloc(BODY_BYTES);
  body.writeUInt32BE(binding.databaseId, 0);
  body.writeUInt32BE(binding.userId, 4);
  body.writeUInt32BE(Math.floor((now.getTime() + SIGNON_TICKET_TTL_MS) / 1000), 8);
  body.writeBigUInt64BE(BigInt(Math.max(0, Math.floor(binding.signedInAt))), 12);
  randomBytes(BODY_BYTES - 20).copy(body, 20);
  return Buffer.concat([body, macOf(key, body, state)]).toString('base64url');
}

/**
 * What a ticket is bound to when its signature (with this `state`) is valid and it has not
 * expired; undefined otherwise.
 */
export function readTicket(key: Buffer, token: string, state: string, now: Date): (TicketBinding & { expiresAt: Date }) | undefined {
  if (!TICKET_PATTERN.test(token) || !STATE_PATTERN.test(state)) return undefined;
  const bytes = Buffer.from(token, 'base64url');
  // One spelling per ticket (45 bytes are exactly 60 characters, but decoding is lenient).
  if (bytes.length !== TICKET_BYTES || bytes.toString('base64url') !== token) return undefined;
  const body = bytes.subarray(0, BODY_BYTES);
  if (!timingSafeEqual(bytes.subarray(BODY_BYTES), macOf(key, body, state))) return undefined;
  const expiresAt = new Date(body.readUInt32BE(8) * 1000);
  if (expiresAt.getTime() <= now.getTime()) return undefined;
  return { databaseId: body.readUInt32BE(0), userId: body.readUInt32BE(4), signedInAt: Number(body.readBigUInt64BE(12)), expiresAt };
}

/** The signon script's shared secret, compared in constant time. */
export function isSignonSecret(presented: string | undefined, secret: string): boolean {
  if (!presented) return false;
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(secret).digest();
  return timingSafeEqual(a, b);
}
