import type { PeerCertificate } from 'node:tls';
import { describe, expect, it, vi } from 'vitest';
import { pinningOptions } from './agent-client.ts';

/** A peer certificate for `localhost` with this sha256 (colon-separated upper-case hex, as Node gives it). */
const peer = (hex: string): PeerCertificate =>
  ({ subject: { CN: 'localhost' }, subjectaltname: 'DNS:localhost', fingerprint256: hex.toUpperCase().match(/../g)?.join(':') ?? '' }) as unknown as PeerCertificate;

const PIN = 'aa'.repeat(32);
const PREVIOUS = 'bb'.repeat(32);

describe('pinningOptions (issue 35: the previous certificate goes once the pinned one is seen)', () => {
  it('accepts the pin and the previous one, refuses others, and tells of each handshake with the pin while a previous one is accepted', () => {
    const seen = vi.fn();
    const check = pinningOptions(PIN, PREVIOUS, seen).checkServerIdentity!;
    expect(check('localhost', peer(PREVIOUS))).toBeUndefined();
    expect(seen).not.toHaveBeenCalled();
    expect(check('localhost', peer(PIN))).toBeUndefined();
    expect(seen).toHaveBeenCalledTimes(1);
    expect(check('localhost', peer('cc'.repeat(32)))).toBeInstanceOf(Error);
    expect(seen).toHaveBeenCalledTimes(1);
  });

  it('tells nothing without a previous fingerprint', () => {
    const seen = vi.fn();
    expect(pinningOptions(PIN, null, seen).checkServerIdentity!('localhost', peer(PIN))).toBeUndefined();
    expect(seen).not.toHaveBeenCalled();
  });
});
