/**
 * People of the school on a test server (tests/support/stacks/debian-machine.ts): a browser session
 * signed in through the school's provider (machine-school-login.ts) with curl inside the server
 * (machine-http.ts), and an admin's account decisions through the API, as the admin screens make them.
 */
import type { DebianMachine } from '../stacks/debian-machine.ts';
import { HttpSession } from './http-session.ts';
import { machineFetch } from './machine-http.ts';

export interface MachineApp {
  /** APP_URL of the control plane there. */
  appUrl: string;
  /** Its HOST:PORT as a URL, e.g. http://127.0.0.1:8080. */
  appAddress: string;
}

/** A browser inside `machine` signed in as `email` (authorization code + PKCE at the school provider); throws unless it lands on 200. */
export async function signInOnMachine(machine: DebianMachine, app: MachineApp, email: string): Promise<HttpSession> {
  const session = new HttpSession(app.appUrl, machineFetch(machine, app));
  const landing = await session.signIn(email);
  if (landing.status !== 200) throw new Error(`the sign-in of ${email} ended with ${landing.status}: ${await landing.text()}`);
  const me = await session.json<{ email?: string }>('GET', '/api/user');
  if (me.status !== 200 || me.body.email !== email) throw new Error(`after the sign-in of ${email}, /api/user answered ${me.status}: ${JSON.stringify(me.body)}`);
  return session;
}

/** The account of `email` as the admin's user list shows it; throws when it is not there. */
export async function accountId(admin: HttpSession, email: string): Promise<number> {
  const { status, body } = await admin.json<Array<{ id: number; email: string }>>('GET', '/api/admin/users');
  const account = status === 200 ? body.find((user) => user.email === email) : undefined;
  if (!account) throw new Error(`no account ${email} in GET /api/admin/users (${status})`);
  return account.id;
}

/** The admin activates the account of `email` and, with `developer`, lets it have databases and VPN; its id. */
export async function approveAccount(admin: HttpSession, email: string, options: { developer: boolean }): Promise<number> {
  const id = await accountId(admin, email);
  const verified = await admin.json('PUT', `/api/admin/users/${id}?action=verify`);
  if (verified.status !== 200) throw new Error(`activating ${email} answered ${verified.status}: ${JSON.stringify(verified.body)}`);
  if (options.developer) {
    const developer = await admin.json('PUT', `/api/admin/users/${id}/developer`, { developer: true });
    if (developer.status !== 200) throw new Error(`making ${email} a developer answered ${developer.status}: ${JSON.stringify(developer.body)}`);
  }
  return id;
}
