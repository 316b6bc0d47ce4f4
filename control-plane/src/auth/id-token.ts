import { createRemoteJWKSet, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { PROVIDER_TIMEOUT_MS } from './discovery.ts';

export interface VerifiedIdentity {
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  /** Every claim of the verified token (the group sync reads its groups claim from here). */
  claims?: Record<string, unknown>;
}

export class IdTokenError extends Error {}

/**
 * Verifies an id_token's signature (against the provider's JWKS), issuer, audience, expiry and,
 * when given, nonce. grant only decodes the token, so this is the check that matters.
 */
export async function verifyIdToken(
  idToken: string,
  expected: { issuer: string; audience: string; keys: JWTVerifyGetKey; nonce?: string; clockToleranceSec?: number },
): Promise<VerifiedIdentity> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(idToken, expected.keys, {
      issuer: expected.issuer,
      audience: expected.audience,
      clockTolerance: expected.clockToleranceSec ?? 30,
      requiredClaims: ['sub', 'exp', 'iat'],
    }));
  } catch (error) {
    throw new IdTokenError(`id_token refused: ${(error as Error).message}`);
  }
  if (expected.nonce !== undefined && payload.nonce !== expected.nonce) {
    throw new IdTokenError('id_token refused: nonce does not match');
  }
  const claim = (key: string): string | null => (typeof payload[key] === 'string' ? (payload[key] as string) : null);
  return {
    issuer: expected.issuer,
    subject: payload.sub as string,
    email: claim('email'),
    emailVerified: payload.email_verified === true || payload.email_verified === 'true',
    name: claim('name'),
    claims: payload,
  };
}

/** The provider's signing keys, fetched and cached by jose. */
export function remoteKeys(jwksUri: string): JWTVerifyGetKey {
  return createRemoteJWKSet(new URL(jwksUri), { cooldownDuration: 30_000, timeoutDuration: PROVIDER_TIMEOUT_MS });
}
