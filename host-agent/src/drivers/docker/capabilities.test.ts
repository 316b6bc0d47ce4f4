import { describe, expect, it } from 'vitest';
import { ALLOWED_CAPABILITIES, parseCapabilities } from './capabilities.ts';

describe('parseCapabilities', () => {
  it('is the allow-list when none are sent (a control plane before contract 1.3.0): the set containers always had', () => {
    expect(parseCapabilities(undefined)).toEqual([...ALLOWED_CAPABILITIES]);
    expect(parseCapabilities(undefined)).not.toEqual(expect.arrayContaining(['NET_RAW']));
  });

  it('keeps what was asked for once, in allow-list order; none is none', () => {
    expect(parseCapabilities(['SETUID', 'KILL', 'SETUID'])).toEqual(['KILL', 'SETUID']);
    expect(parseCapabilities([])).toEqual([]);
  });

  it('refuses anything outside the allow-list, however it is spelled', () => {
    for (const name of ['SYS_ADMIN', 'NET_ADMIN', 'NET_RAW', 'MKNOD', 'SETFCAP', 'ALL', 'CAP_CHOWN', 'chown', ' CHOWN', '']) {
      expect(() => parseCapabilities(['CHOWN', name]), name).toThrow(expect.objectContaining({ kind: 'invalid-argument' }));
    }
  });

  it("never holds a capability outside Docker's default set or one it drops (the list is the contract's, shared with the images page)", () => {
    for (const name of ['NET_RAW', 'MKNOD', 'SETFCAP', 'SYS_ADMIN', 'NET_ADMIN', 'SYS_PTRACE', 'SYS_MODULE', 'DAC_READ_SEARCH']) {
      expect(ALLOWED_CAPABILITIES, name).not.toContain(name);
    }
    expect(new Set(ALLOWED_CAPABILITIES).size).toBe(ALLOWED_CAPABILITIES.length);
  });
});
