/**
 * The school's identity provider inside a test server (tests/support/services/school-login-provider.mjs,
 * run by the bundle's Node as a transient unit `school-login.service`): the server's network is
 * its own, so the control plane there signs in at this one, by name (login.school.test in
 * /etc/hosts, as a school's DNS would answer), over the real OpenID Connect code flow.
 */
import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import type { DebianMachine } from '../stacks/debian-machine.ts';
import { waitFor } from './ports.ts';

export interface MachineSchoolLogin {
  issuer: string;
  /** The control plane's settings for it (control-plane.env). */
  env: { OIDC_ISSUER: string; OIDC_CLIENT_ID: string; OIDC_CLIENT_SECRET: string };
}

const HOST = 'login.school.test';
const PORT = 9090;

/** Starts the provider on 127.0.0.1:9090 as http://login.school.test:9090 and waits until its discovery answers. */
export async function startMachineSchoolLogin(machine: DebianMachine): Promise<MachineSchoolLogin> {
  const issuer = `http://${HOST}:${PORT}`;
  await copyFile(path.join(import.meta.dirname, '../services/school-login-provider.mjs'), path.join(machine.tree, 'root/school-login-provider.mjs'));
  await machine.ok(`grep -q ' ${HOST}$' /etc/hosts || echo '127.0.0.1 ${HOST}' >> /etc/hosts`);
  await machine.ok(
    `systemd-run --unit=school-login --setenv=SCHOOL_LOGIN_ISSUER=${issuer} --setenv=SCHOOL_LOGIN_LISTEN=127.0.0.1:${PORT} /opt/devplein/current/node/bin/node /root/school-login-provider.mjs`,
  );
  await waitFor(async () => (await machine.run(`curl -fsS --max-time 2 ${issuer}/.well-known/openid-configuration`)).code === 0, {
    description: `the school login provider at ${issuer}`,
    timeoutMs: 30_000,
    intervalMs: 200,
  });
  return { issuer, env: { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: 'devplein', OIDC_CLIENT_SECRET: 'k3y0f7h3sch00l4e9c2b1a6d5f8e3c7b' } };
}
