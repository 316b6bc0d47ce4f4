import { describe, expect, it } from 'vitest';
import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { verifyIdToken, IdTokenError } from './id-token.ts';

const issuer = 'https://login.school.test';
const audience = 'devplein';

async function keyPair(kid: string) {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  return { privateKey, jwk };
}

async function sign(
  privateKey: CryptoKey,
  kid: string,
  claims: Record<string, unknown> = {},
  options: { iss?: string; aud?: string; exp?: number | string } = {},
) {
  return new SignJWT({ email: 'sam@school.test', email_verified: true, name: 'Sam', nonce: 'n1', ...claims })
    .setProtectedHeader({ alg: 'RS256', kid })
    .setIssuer(options.iss ?? issuer)
    .setAudience(options.aud ?? audience)
    .setSubject('subject-1')
    .setIssuedAt()
    .setExpirationTime(options.exp ?? '5m')
    .sign(privateKey);
}

describe('verifyIdToken', async () => {
  const published = await keyPair('k1');
  const keys = createLocalJWKSet({ keys: [published.jwk] });

  it('accepts a token signed by the published key and returns the identity', async () => {
    const token = await sign(published.privateKey, 'k1');
    await expect(verifyIdToken(token, { issuer, audience, keys, nonce: 'n1' })).resolves.toEqual({
      issuer,
      subject: 'subject-1',
      email: 'sam@school.test',
      emailVerified: true,
      name: 'Sam',
      // Every verified claim, for the group mapping (OIDC_GROUPS_CLAIM).
      claims: expect.objectContaining({ iss: issuer, sub: 'subject-1', email: 'sam@school.test', nonce: 'n1' }),
    });
  });

  it('refuses a token signed by another key under the same key id', async () => {
    const rogue = await keyPair('k1');
    const token = await sign(rogue.privateKey, 'k1');
    await expect(verifyIdToken(token, { issuer, audience, keys })).rejects.toBeInstanceOf(IdTokenError);
  });

  it('refuses a wrong issuer, a wrong audience, an expired token and a wrong nonce', async () => {
    const wrongIssuer = await sign(published.privateKey, 'k1', {}, { iss: 'https://evil.test' });
    await expect(verifyIdToken(wrongIssuer, { issuer, audience, keys })).rejects.toThrow(/refused/);
    const wrongAudience = await sign(published.privateKey, 'k1', {}, { aud: 'someone-else' });
    await expect(verifyIdToken(wrongAudience, { issuer, audience, keys })).rejects.toThrow(/refused/);
    const expired = await sign(published.privateKey, 'k1', {}, { exp: Math.floor(Date.now() / 1000) - 3600 });
    await expect(verifyIdToken(expired, { issuer, audience, keys })).rejects.toThrow(/refused/);
    const token = await sign(published.privateKey, 'k1');
    await expect(verifyIdToken(token, { issuer, audience, keys, nonce: 'other' })).rejects.toThrow(/nonce/);
  });

  it('refuses a token whose signature was tampered with', async () => {
    const token = await sign(published.privateKey, 'k1');
    const [header, , signature] = token.split('.');
    const forgedPayload = Buffer.from(
      JSON.stringify({ iss: issuer, aud: audience, sub: 'admin', exp: Math.floor(Date.now() / 1000) + 60, iat: 1 }),
    ).toString('base64url');
    await expect(verifyIdToken(`${header}.${forgedPayload}.${signature}`, { issuer, audience, keys })).rejects.toThrow(
      /refused/,
    );
  });
});
