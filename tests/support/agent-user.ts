/**
 * An unprivileged system user for the host agent in tests, made the way deploy/ makes
 * devplein-agent (useradd --system, member of the Docker socket's group, no login shell), so a
 * test can run the real agent as the deploy unit runs it. Made once per machine and kept, like
 * any system user; root only.
 */
import { execFile } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { DOCKER_SOCKET } from './docker.ts';

const execFileAsync = promisify(execFile);

export const TEST_AGENT_USER = 'devplein-test-agent';

export interface AgentUser {
  name: string;
  uid: number;
  gid: number;
  /** The Docker socket's group, which the user is a member of. */
  dockerGid: number;
}

/** Whether this process may make a user and start the agent as another one. */
export function canSwitchUser(): boolean {
  return process.getuid?.() === 0;
}

async function run(command: string, args: string[]): Promise<{ ok: boolean; stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await execFileAsync(command, args);
    return { ok: true, stdout, stderr, code: 0 };
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string; code?: unknown };
    return { ok: false, stdout: failure.stdout ?? '', stderr: failure.stderr ?? '', code: typeof failure.code === 'number' ? failure.code : -1 };
  }
}

/** TEST_AGENT_USER, created when missing and put in the Docker socket's group. */
export async function ensureAgentUser(): Promise<AgentUser> {
  if (!canSwitchUser()) throw new Error('making the test agent user needs root');
  const dockerGid = (await stat(DOCKER_SOCKET)).gid;
  if (dockerGid === 0) {
    throw new Error(`${DOCKER_SOCKET} belongs to group root: give the Docker socket its own group (Debian's docker.io: docker) to run the agent unprivileged`);
  }
  const group = (await run('getent', ['group', String(dockerGid)])).stdout.split(':')[0];
  if (!group) throw new Error(`group ${dockerGid} of ${DOCKER_SOCKET} has no name`);
  if (!(await run('id', ['-u', TEST_AGENT_USER])).ok) {
    const made = await run('useradd', ['--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', '--groups', group, TEST_AGENT_USER]);
    // 9: another test file made it in between.
    if (!made.ok && made.code !== 9) throw new Error(`useradd ${TEST_AGENT_USER} failed: ${made.stderr}`);
  }
  const groups = (await run('id', ['-G', TEST_AGENT_USER])).stdout.trim().split(/\s+/).map(Number);
  if (!groups.includes(dockerGid)) {
    const added = await run('usermod', ['--append', '--groups', group, TEST_AGENT_USER]);
    if (!added.ok) throw new Error(`usermod could not put ${TEST_AGENT_USER} in ${group}: ${added.stderr}`);
  }
  const uid = Number((await run('id', ['-u', TEST_AGENT_USER])).stdout.trim());
  const gid = Number((await run('id', ['-g', TEST_AGENT_USER])).stdout.trim());
  if (!(uid > 0) || !(gid > 0)) throw new Error(`${TEST_AGENT_USER} has no usable uid/gid`);
  return { name: TEST_AGENT_USER, uid, gid, dockerGid };
}

/** The real, effective, saved and file-system uids, the groups and the effective capabilities of a process. */
export async function processIdentity(pid: number): Promise<{ uids: number[]; groups: number[]; effectiveCapabilities: bigint }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => status.match(new RegExp(`^${name}:\\s*(.*)$`, 'm'))?.[1]?.trim() ?? '';
  return {
    uids: field('Uid').split(/\s+/).map(Number),
    groups: field('Groups').split(/\s+/).filter(Boolean).map(Number),
    effectiveCapabilities: BigInt(`0x${field('CapEff') || '0'}`),
  };
}
