import type { Metadata } from '@grpc/grpc-js';

/** Metadata key carrying the caller's request id across the gRPC hop (and back in the reply). */
export const REQUEST_ID_METADATA_KEY = 'x-request-id';

/** First string value of a metadata key, or undefined (binary values are ignored). */
export function metadataString(metadata: Metadata, key: string): string | undefined {
  const value = metadata.get(key)[0];
  return typeof value === 'string' ? value : undefined;
}
