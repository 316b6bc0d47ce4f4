import { describe, expect, it } from 'vitest';
import { CONTRACT_VERSION, CONTRACT_VERSION_METADATA_KEY } from '@devplein/proto/version';
import { callMetadata, REQUEST_ID_METADATA_KEY } from './grpc-unary.ts';

describe('agent calls', () => {
  it('send the contract version and a request id on every call', () => {
    const metadata = callMetadata('req-42');
    expect(metadata.get(CONTRACT_VERSION_METADATA_KEY)).toEqual([CONTRACT_VERSION]);
    expect(metadata.get(REQUEST_ID_METADATA_KEY)).toEqual(['req-42']);
    expect(callMetadata().get(REQUEST_ID_METADATA_KEY)[0]).toMatch(/^[0-9a-f-]{36}$/);
  });
});
