import { describe, expect, it } from 'vitest';
import { isMissingPath } from '../docker/container-files.ts';
import { legacyKeysMount } from './container-keys.ts';

/** A dockerode error as docker-modem builds it: its own text for the status, then the engine's. */
const dockerodeError = (statusCode: number, engine: string, json: unknown = null) =>
  Object.assign(new Error(`(HTTP code ${statusCode}) no such container - ${engine} `), { statusCode, json });

describe('isMissingPath', () => {
  it('tells a missing file from a missing container, whatever text dockerode puts in front', () => {
    expect(isMissingPath(dockerodeError(404, 'Could not find the file /etc/passwd in container abc'))).toBe(true);
    expect(isMissingPath(dockerodeError(404, '', { message: 'Could not find the file /home/student in container abc' }))).toBe(true);
    expect(isMissingPath(dockerodeError(404, 'lstat /var/lib/docker/overlay2/x/merged/etc/passwd: no such file or directory'))).toBe(true);
    expect(isMissingPath(dockerodeError(404, 'No such container: abc', { message: 'No such container: abc' }))).toBe(false);
    expect(isMissingPath(dockerodeError(500, 'Could not find the file /etc/passwd in container abc'))).toBe(false);
    expect(isMissingPath(Object.assign(new Error('connect ENOENT /var/run/docker.sock'), { code: 'ENOENT' }))).toBe(false);
  });
});

describe('legacyKeysMount', () => {
  it('finds the read-only keys folder earlier agents mounted, and nothing else', () => {
    const bind = (Destination: string, Type: 'bind' | 'volume' = 'bind') => ({ Type, Source: '/var/lib/devplein-agent/ssh/7', Destination, Mode: 'ro', RW: false, Propagation: 'rprivate' });
    expect(legacyKeysMount({ Mounts: [bind('/home/student/.ssh')] })).toMatchObject({ Source: '/var/lib/devplein-agent/ssh/7' });
    expect(legacyKeysMount({ Mounts: [bind('/home/student/.ssh/')] })).toBeDefined();
    expect(legacyKeysMount({ Mounts: [] })).toBeUndefined();
    expect(legacyKeysMount({ Mounts: [bind('/home/student/.ssh', 'volume')] })).toBeUndefined();
    expect(legacyKeysMount({ Mounts: [bind('/srv/data')] })).toBeUndefined();
  });
});
