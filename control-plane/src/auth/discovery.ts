import { z } from 'zod';

const discoverySchema = z.object({
  issuer: z.string(),
  authorization_endpoint: z.url(),
  token_endpoint: z.url(),
  userinfo_endpoint: z.url().optional(),
  jwks_uri: z.url(),
  end_session_endpoint: z.url().optional(),
});

export type ProviderMetadata = z.infer<typeof discoverySchema>;

/**
 * How long a call to the identity provider may take (discovery, the token exchange, userinfo,
 * the signing keys). Generous on purpose: a sign-in that waits is better than one that fails, and
 * libraries' 5 s defaults failed sign-ins when the provider was slow or the server busy (40
 * sign-ins at once on a busy 2-core machine: grant's token exchange gave up, "Inloggen mislukt").
 */
export const PROVIDER_TIMEOUT_MS = 20_000;

/** Reads the provider's `.well-known/openid-configuration` (grant has no discovery of its own). */
export async function discoverProvider(issuer: string): Promise<ProviderMetadata> {
  const url = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
  const response = await fetch(url, { signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });
  if (!response.ok) throw new Error(`OpenID discovery at ${url} answered ${response.status}`);
  const metadata = discoverySchema.parse(await response.json());
  if (metadata.issuer !== issuer.replace(/\/$/, '') && metadata.issuer !== issuer) {
    throw new Error(`OpenID discovery issuer mismatch: expected ${issuer}, got ${metadata.issuer}`);
  }
  return metadata;
}

/**
 * The providers' metadata, each discovered once on first use (the provider may be served by this
 * very process, so not at start-up); a failed discovery is tried again next time. One per app
 * (AppServices.providerDiscovery): sign-in and logout share it.
 */
export class ProviderDiscovery {
  private readonly discovered = new Map<string, Promise<ProviderMetadata>>();

  metadata(issuer: string): Promise<ProviderMetadata> {
    let metadata = this.discovered.get(issuer);
    if (!metadata) {
      metadata = discoverProvider(issuer).catch((error: unknown) => {
        this.discovered.delete(issuer);
        throw error;
      });
      this.discovered.set(issuer, metadata);
    }
    return metadata;
  }
}
