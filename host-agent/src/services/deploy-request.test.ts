import * as grpc from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import type { DeployRepositoryRequest } from '@devplein/proto/deploy';
import { checkDeployRequest, DeployRequestError } from './deploy-service.ts';

const base: DeployRepositoryRequest = {
  projectId: 7,
  address: 'https://git.school.nl/klas/site.git',
  branch: '',
  commit: '',
  target: { webRoot: '/www', afterUpdate: '', keepPaths: ['.env'], buildCommand: '', buildOutput: '' },
  allowedHosts: ['git.school.nl', 'github.com'],
  allowHttp: false,
  credentials: undefined,
  deployId: 'd1',
};

function refusal(request: Partial<DeployRepositoryRequest>, agentHosts: string[] = []): string {
  try {
    checkDeployRequest({ ...base, ...request }, agentHosts);
  } catch (error) {
    expect(error).toBeInstanceOf(DeployRequestError);
    expect((error as DeployRequestError).code).toBe(grpc.status.INVALID_ARGUMENT);
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('checkDeployRequest', () => {
  it('accepts a plain request and reads empty fields as absent', () => {
    const checked = checkDeployRequest(base, []);
    expect(checked).toMatchObject({ projectId: 7, branch: undefined, commit: undefined, credentials: { kind: 'anonymous' }, allowedHosts: ['git.school.nl', 'github.com'] });
    expect(checked.address.url).toBe('https://git.school.nl/klas/site.git');
    expect(checked.settings).toEqual({ webRoot: '/www', keepPaths: ['.env'], afterUpdate: null, buildCommand: null, buildOutput: null });
  });

  it('refuses addresses outside the request’s list, outside the agent’s own list, file:// and ext::', () => {
    expect(refusal({ address: 'https://evil.example/x.git' })).toMatch(/niet toegestaan/);
    expect(refusal({ address: 'file:///etc/x.git' })).toMatch(/file:\/\//);
    expect(refusal({ address: 'ext::sh -c id' })).toMatch(/niet toegestaan|tekens/);
    expect(refusal({ address: 'https://github.com/a/b.git' }, ['git.school.nl'])).toBe('De Git-server github.com is niet toegestaan op deze ontwikkelserver. Toegestaan: git.school.nl.');
    expect(checkDeployRequest({ ...base, address: 'https://git.school.nl/a/b.git' }, ['git.school.nl']).allowedHosts).toEqual(['git.school.nl']);
  });

  it('refuses a port the lists do not name: the firewall would open it on every address of the host (issue 35)', () => {
    expect(refusal({ address: 'https://git.school.nl:3306/klas/site.git' })).toMatch(/^Poort 3306 van de Git-server git\.school\.nl is niet toegestaan/);
    expect(refusal({ address: 'ssh://git@github.com:2222/a/b.git' })).toMatch(/Poort 2222/);
    // A port the control plane's list names, and the agent's list too (entry by entry).
    const forge = { allowedHosts: ['git.school.nl:2222'], address: 'ssh://git@git.school.nl:2222/klas/site.git' };
    expect(checkDeployRequest({ ...base, ...forge }, []).address.port).toBe(2222);
    expect(checkDeployRequest({ ...base, ...forge }, ['git.school.nl:2222']).allowedHosts).toEqual(['git.school.nl:2222']);
    expect(refusal(forge, ['git.school.nl'])).toBe('De Git-server git.school.nl:2222 is niet toegestaan op deze ontwikkelserver. Toegestaan: git.school.nl.');
  });

  it('checks branch, commit, web root, keep paths, build step and credentials', () => {
    expect(refusal({ branch: '--upload-pack=x' })).toMatch(/branchnaam/);
    expect(refusal({ commit: 'abc' })).toMatch(/40 tekens/);
    expect(checkDeployRequest({ ...base, commit: 'A'.repeat(40) }, []).commit).toBe('a'.repeat(40));
    expect(refusal({ target: { ...base.target!, webRoot: 'www' } })).toMatch(/webmap/);
    expect(refusal({ target: { ...base.target!, webRoot: '/' } })).toMatch(/webmap/);
    expect(refusal({ target: { ...base.target!, keepPaths: ['../etc'] } })).toMatch(/bewaren/);
    expect(refusal({ target: { ...base.target!, buildCommand: 'npm run build' } })).toMatch(/bouwstap/);
    expect(refusal({ target: { ...base.target!, buildCommand: 'a\nb', buildOutput: 'dist' } })).toMatch(/één regel/);
    expect(refusal({ target: undefined })).toMatch(/doel/);
    expect(refusal({ credentials: { $case: 'useDeployKey', value: true } })).toMatch(/SSH-adres/);
    expect(refusal({ address: 'git@git.school.nl:klas/site.git', credentials: { $case: 'httpsToken', value: 'abc' } })).toMatch(/https/);
    expect(refusal({ credentials: { $case: 'httpsToken', value: 'a b' } })).toMatch(/token/);
    expect(checkDeployRequest({ ...base, address: 'git@git.school.nl:klas/site.git', credentials: { $case: 'useDeployKey', value: true } }, []).credentials).toEqual({ kind: 'deploy-key' });
    expect(refusal({ projectId: 0 })).toMatch(/project_id/);
  });
});
