import { describe, expect, it } from 'vitest';
import { hashJoinToken, newJoinToken } from './agent-link-store.ts';
import { joinCommand, joinString } from './join-authority.ts';

describe('join tokens', () => {
  it('are 256 random bits in base64url, different each time, stored as their sha256 only', () => {
    const tokens = new Set(Array.from({ length: 50 }, () => newJoinToken()));
    expect(tokens.size).toBe(50);
    for (const token of tokens) {
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(token, 'base64url')).toHaveLength(32);
      expect(hashJoinToken(token)).toMatch(/^[0-9a-f]{64}$/);
      expect(hashJoinToken(token)).not.toContain(token);
    }
  });

  it('make a join string install.sh parses: <url>#<token>.<ca sha256>, pasted quoted', () => {
    const token = newJoinToken();
    const value = joinString('https://devplein.school.nl/', token, 'ab'.repeat(32));
    expect(value).toBe(`https://devplein.school.nl#${token}.${'ab'.repeat(32)}`);
    // The pattern deploy/install.sh checks (join_pattern).
    expect(value).toMatch(/^(https?:\/\/[^#/\s]+)\/?#([A-Za-z0-9_-]{43})\.([0-9a-f]{64})$/);
    // The string itself is pasted at install.sh's question: on no command line (issue 33).
    expect(joinCommand()).toBe('sudo ./install.sh agent --join -');
    expect(joinCommand()).not.toContain(token);
  });

  it("name the school's release signer in the command when this server has one, so the new server checks the bundle against it", () => {
    const signer = 'release@school.test ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOn7nT0dT8sVhXgq1b0V3oYbq0m8mJ1kXx3xj6S3yQ9u';
    expect(joinCommand(signer)).toBe(`sudo ./install.sh agent --signer '${signer}' --join -`);
  });
});
