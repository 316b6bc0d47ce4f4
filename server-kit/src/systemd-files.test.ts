import { describe, expect, it } from 'vitest';
import { credentialsAtRest, credentialsDirOf, parseEnvFile, unitCredentials, unitEnvironment } from './systemd-files.ts';

const unit = `[Service]
EnvironmentFile=/etc/devplein/agent.env
LoadCredential=browser-secret:/etc/devplein/credentials/browser-secret
LoadCredential=git-runner-secret:/etc/devplein/credentials/git-runner-secret
Environment=AGENT_GIT_RUNNER_SECRET_FILE=%d/git-runner-secret
Environment=HOME=/var/lib/devplein-agent NODE_ENV=production
`;

describe('parseEnvFile', () => {
  it('reads KEY=value lines as systemd does: comments, blank lines, one pair of quotes; names the lines it would skip', () => {
    const file = parseEnvFile('# comment\n; also a comment\n\nA=1\nB="two words"\nC=\'x\'\nnot an assignment\nD=\n  E = 5\n');
    expect(file.values).toEqual({ A: '1', B: 'two words', C: 'x', D: '' });
    expect(file.keys).toEqual(['A', 'B', 'C', 'D']);
    expect(file.invalidLines).toEqual([7, 9]);
  });
});

describe('unit files', () => {
  it('reads Environment= with %d as the credentials folder, and LoadCredential= by name', () => {
    expect(unitEnvironment(unit, credentialsDirOf('devplein-agent.service'))).toEqual({
      AGENT_GIT_RUNNER_SECRET_FILE: '/run/credentials/devplein-agent.service/git-runner-secret',
      HOME: '/var/lib/devplein-agent',
      NODE_ENV: 'production',
    });
    expect(unitCredentials(unit).get('browser-secret')).toBe('/etc/devplein/credentials/browser-secret');
  });

  it('points a path into the credentials folder at the file LoadCredential= copies, for a check outside the service', () => {
    const env = {
      AGENT_GIT_RUNNER_SECRET_FILE: '/run/credentials/devplein-agent.service/git-runner-secret',
      AGENT_BROWSER_SECRET_FILE: '/run/credentials/devplein-agent.service/browser-secret',
      OTHER: '/run/credentials/devplein-agent.service/unknown',
      PLAIN: 'x',
    };
    expect(credentialsAtRest(env, unit, 'devplein-agent.service')).toEqual({
      AGENT_GIT_RUNNER_SECRET_FILE: '/etc/devplein/credentials/git-runner-secret',
      AGENT_BROWSER_SECRET_FILE: '/etc/devplein/credentials/browser-secret',
      OTHER: '/run/credentials/devplein-agent.service/unknown',
      PLAIN: 'x',
    });
    // Another unit's folder is left alone.
    expect(credentialsAtRest({ A: '/run/credentials/devplein-git.service/git-runner-secret' }, unit, 'devplein-agent.service').A).toBe(
      '/run/credentials/devplein-git.service/git-runner-secret',
    );
  });
});
