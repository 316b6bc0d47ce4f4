/*
 * Cards and deploys as the control plane sends them, for the dockers card's tests. Not used by
 * the app itself.
 */
import type { DeployCommitView, DockerDeploySummary, ProjectDeploy, ProjectDeployPanel } from '@devplein/contract/deploys';
import type { UserDocker } from '../../api/queries/dockers.ts';

/** A running project of two members, without git deploy unless `deploy` is given. */
export function userDocker(overrides: Partial<UserDocker> = {}): UserDocker {
  return {
    Id: 'abc123',
    Names: ['/webshop'],
    Image: '127.0.0.1:5000/devplein/php:8.3',
    State: 'running',
    Status: 'Up 3 minutes',
    Labels: { projectId: 7 },
    project: { id: 7, name: 'webshop', validated: true, docker_id: 2 },
    Users: [
      { id: 4, name: 'Sam Student' },
      { id: 5, name: 'Olga Ontwikkelaar' },
    ],
    description: 'Een webshop voor tweedehands fietsen, gebouwd met Laravel en Vue.',
    domain: 'webshop.dev.devplein.test',
    ssh: false,
    sshCommand: null,
    wordpress: false,
    autoStop: null,
    exit: null,
    deploy: null,
    ...overrides,
  };
}

export const commitA: DeployCommitView = {
  hash: '3f9c2a1d8e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a',
  shortHash: '3f9c2a1',
  subject: 'Menu werkt nu ook op de telefoon',
  author: 'Sam Student',
  time: '2026-11-27T20:57:00Z',
};

export const commitB: DeployCommitView = {
  hash: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
  shortHash: 'a1b2c3d',
  subject: 'Nieuwe fietsen op de voorpagina',
  author: 'Olga Ontwikkelaar',
  time: '2026-11-27T21:10:00Z',
};

export function projectDeploy(overrides: Partial<ProjectDeploy> = {}): ProjectDeploy {
  return {
    id: 11,
    projectId: 7,
    status: 'deployed',
    trigger: 'webhook',
    branch: null,
    commit: commitA,
    requestedBy: null,
    failure: null,
    message: null,
    createdAt: '2026-11-27T20:58:00Z',
    startedAt: '2026-11-27T20:58:01Z',
    finishedAt: '2026-11-27T20:58:09Z',
    ...overrides,
  };
}

export function deploySummary(overrides: Partial<DockerDeploySummary> = {}): DockerDeploySummary {
  const current = projectDeploy();
  return { repository: 'https://git.school.nl/sam/webshop.git', branch: null, current, latest: current, tokenMissing: false, webhookNotice: null, ...overrides };
}

export function deployPanel(overrides: Partial<ProjectDeployPanel> = {}): ProjectDeployPanel {
  return {
    repository: 'https://git.school.nl/sam/webshop.git',
    branch: null,
    auth: 'none',
    hasToken: false,
    token: null,
    deploys: [
      projectDeploy({ id: 13, status: 'failed', trigger: 'webhook', commit: commitB, failure: 'after-update-failed', message: 'De opdracht na het bijwerken stopte met exitcode 1.' }),
      projectDeploy({ id: 12, status: 'superseded', trigger: 'webhook', commit: null }),
      projectDeploy({ id: 11 }),
      projectDeploy({ id: 9, trigger: 'button', commit: { ...commitA, hash: '0123456789abcdef0123456789abcdef01234567', shortHash: '0123456', subject: 'Eerste versie' }, requestedBy: { id: 4, name: 'Sam Student' } }),
      projectDeploy({ id: 8, status: 'failed', trigger: 'create', commit: null, failure: 'fetch-failed', message: 'De repository kon niet worden opgehaald.' }),
    ],
    webhook: { url: 'https://devplein.school.nl/api/webhooks/deploy/7', secret: 'whsec_6f1d0c9b2a8e4f7d' },
    deployKey: {
      publicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGk3c1Zm0vQ9x8y7w6v5u4t3s2r1q0p9o8n7m6l5k4j3 devplein-project-7',
      fingerprint: 'SHA256:q3N8r0bJm2fXo1vZ9yK4tL7wP6sD5aE3cG2hU1iO0nM',
    },
    deployKeyStatus: 'made',
    ...overrides,
  };
}
