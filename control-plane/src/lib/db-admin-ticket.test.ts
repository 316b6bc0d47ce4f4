import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { mintSignonTicket, readTicket, SIGNON_TICKET_TTL_MS, TICKET_PATTERN } from './db-admin-ticket.ts';

const key = randomBytes(32);
const binding = { databaseId: 42, userId: 7, signedInAt: 1_764_000_000_123 };
const state = randomBytes(32).toString('base64url');
const now = new Date('2026-12-02T07:00:00Z');

describe('phpMyAdmin sign-on tickets', () => {
  it('carry the database, its owner and the sign-in, for one minute, in 60 characters', () => {
    const ticket = mintSignonTicket(key, binding, state, now);
    expect(ticket).toMatch(TICKET_PATTERN);
    const read = readTicket(key, ticket, state, now);
    expect(read).toMatchObject(binding);
    expect(read?.expiresAt.getTime()).toBe(now.getTime() + SIGNON_TICKET_TTL_MS);
    expect(readTicket(key, ticket, state, new Date(now.getTime() + SIGNON_TICKET_TTL_MS))).toBeUndefined();
  });

  it('are valid only with the browser nonce they were made for', () => {
    const ticket = mintSignonTicket(key, binding, state, now);
    expect(readTicket(key, ticket, randomBytes(32).toString('base64url'), now)).toBeUndefined();
    expect(readTicket(key, ticket, '', now)).toBeUndefined();
    expect(readTicket(key, ticket, `${state}x`, now)).toBeUndefined();
  });

  it('refuse another key and any changed byte', () => {
    const ticket = mintSignonTicket(key, binding, state, now);
    expect(readTicket(randomBytes(32), ticket, state, now)).toBeUndefined();
    const bytes = Buffer.from(ticket, 'base64url');
    for (const index of [0, 4, 8, 12, 20, 30]) {
      const changed = Buffer.from(bytes);
      changed[index] = (changed[index] ?? 0) ^ 1;
      expect(readTicket(key, changed.toString('base64url'), state, now), `byte ${index}`).toBeUndefined();
    }
  });
});
