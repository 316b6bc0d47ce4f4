import { describe, expect, it } from 'vitest';
import { CONTRACT_MAJOR, CONTRACT_VERSION, CONTRACT_VERSION_METADATA_KEY } from './version.ts';

describe('contract version', () => {
  it('is semver and its major matches CONTRACT_MAJOR', () => {
    expect(CONTRACT_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
    expect(Number(CONTRACT_VERSION.split('.')[0])).toBe(CONTRACT_MAJOR);
  });

  it('travels in a lower-case ASCII metadata key (gRPC requires it)', () => {
    expect(CONTRACT_VERSION_METADATA_KEY).toMatch(/^[a-z0-9-]+$/);
  });
});
