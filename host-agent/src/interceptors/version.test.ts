import { describe, expect, it } from 'vitest';
import { CONTRACT_VERSION_METADATA_KEY } from '@devplein/proto/version';
import { checkContractVersion } from './version.ts';

describe('checkContractVersion', () => {
  it('accepts the same major with any minor and patch', () => {
    expect(checkContractVersion('1.0.0', '1.0.0')).toEqual({ ok: true });
    expect(checkContractVersion('1.7.3', '1.0.0')).toEqual({ ok: true });
    expect(checkContractVersion('1.0.0', '1.4.0')).toEqual({ ok: true });
    expect(checkContractVersion(' 1.2.0-rc.1 ', '1.0.0')).toEqual({ ok: true });
  });

  it('refuses another major and says which side to upgrade', () => {
    const newer = checkContractVersion('2.0.0', '1.0.0');
    expect(newer).toMatchObject({ ok: false });
    expect(newer.ok || newer.message).toMatch(/2\.0\.0 is not supported.*1\.0\.0.*upgrade the agent/);
    const older = checkContractVersion('0.9.0', '1.0.0');
    expect(older.ok || older.message).toMatch(/upgrade the control plane/);
  });

  it('refuses a missing or malformed version with a clear message', () => {
    const missing = checkContractVersion(undefined, '1.0.0');
    expect(missing.ok || missing.message).toContain(`missing metadata "${CONTRACT_VERSION_METADATA_KEY}"`);
    expect(checkContractVersion('  ', '1.0.0').ok).toBe(false);
    const malformed = checkContractVersion('v1', '1.0.0');
    expect(malformed.ok || malformed.message).toContain('MAJOR.MINOR.PATCH');
  });
});
