/**
 * What must hold whatever the bodies were: every call the fake agent received carries only
 * validated names (MySQL identifiers, container and project names, domains for the reverse proxy,
 * image references, WireGuard and SSH keys), the rows written hold only validated values, and
 * uploaded course files lie in the store's directory under generated names, nowhere else.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import type { FakeCall } from '../support/fakes/fake-agent.ts';
import { parseSshPublicKey } from '../../control-plane/src/ssh/ssh-public-key.ts';
import { credentialAddressOf } from '../../control-plane/src/lib/git-credential.ts';
import { IMAGE_REFERENCE } from '@devplein/contract/validation/imageReference';
import { COHORT_PATTERN } from '@devplein/contract/validation/cohort';
import { COURSE_FILE_TYPES } from '@devplein/contract/levels';
import { GIT_URL_PATTERN, PROJECT_DOMAIN_PATTERN, PROJECT_NAME_PATTERN, isInsideSiteDomain } from '@devplein/contract/validation/projectRequest';
import { INTRODUCEE_NAME_PATTERN } from '@devplein/contract/validation/licensesAndIntroducees';
import { CONTAINER_CAPABILITIES } from '@devplein/contract/validation/containerCapabilities';
import { checkRepositoryAddress, isSafeBranchName } from '@devplein/contract/validation/repositoryAddress';

/** `u{userId}_{1–3 letters}`: the only database and account names the control plane may ask for. */

const allowedCapabilities: ReadonlySet<string> = new Set(CONTAINER_CAPABILITIES);
const DATABASE_NAME = /^u(\d+)_[a-z]{1,3}$/;
/** Docker's container name grammar (the admin API addresses unmanaged containers by it). */
const CONTAINER_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PEER_ADDRESS = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}\/32$/;
/** A course file's storage key: 24 random bytes in base64url (store-course-file.ts). */
const STORAGE_KEY = /^[A-Za-z0-9_-]{32}$/;
const CONTAINER_ACTIONS = new Set([1, 2, 3, 4, 5]);

const isId = (value: unknown): boolean => typeof value === 'number' && Number.isSafeInteger(value) && value > 0 && value <= 2_147_483_647;

/** Base64 of exactly 32 bytes: a WireGuard key. */
const isWireguardKey = (value: unknown): boolean =>
  typeof value === 'string' && /^[A-Za-z0-9+/]{43}=$/.test(value) && Buffer.from(value, 'base64').length === 32 && Buffer.from(value, 'base64').toString('base64') === value;

/** A project name as the project rules allow it (it becomes a container name and a DNS label). */
const isProjectName = (value: unknown): boolean => typeof value === 'string' && PROJECT_NAME_PATTERN.test(value);

/** A project domain: the project rules' shape, lowercase, under the site domain. */
const isProjectDomain = (value: unknown, siteDomain: string): boolean =>
  typeof value === 'string' && value.length <= 253 && value === value.toLowerCase() && PROJECT_DOMAIN_PATTERN.test(value) && isInsideSiteDomain(value, siteDomain);

interface ContainerRefLike {
  ref?: { $case: 'projectId'; value: unknown } | { $case: 'name'; value: unknown };
}

const isContainerRef = (ref: ContainerRefLike | undefined): boolean =>
  ref?.ref?.$case === 'projectId' ? isId(ref.ref.value) : ref?.ref?.$case === 'name' && typeof ref.ref.value === 'string' && CONTAINER_NAME.test(ref.ref.value);

/** Account names of student databases: `u{userId}_{1–3 letters}`, at least one. */
const isAccountList = (users: unknown): boolean => Array.isArray(users) && users.length > 0 && users.every((user) => typeof user === 'string' && DATABASE_NAME.test(user));

type Rule = (request: Record<string, unknown>, siteDomain: string) => string | null;

const check = (ok: boolean, what: string): string | null => (ok ? null : what);

/** Per agent method: what its request may carry. A method without a rule is a problem too. */
const RULES: Record<string, Rule> = {
  getInfo: () => null,
  health: () => null,
  listRoutes: () => null,
  listPeers: () => null,
  getServerInfo: () => null,
  createContainer: (request, site) =>
    check(isId(request.projectId), 'project id') ??
    check(isProjectName(request.name), 'container name is not a project name') ??
    check(isProjectDomain(request.domain, site), 'domain is not a project domain') ??
    check(typeof request.image === 'string' && IMAGE_REFERENCE.test(request.image), 'image reference') ??
    check(isId(request.ownerUserId), 'owner id') ??
    check(Array.isArray(request.memberUserIds) && request.memberUserIds.every(isId), 'member ids'),
  changeContainerState: (request) =>
    check(isContainerRef(request.container as ContainerRefLike), 'container reference') ?? check(CONTAINER_ACTIONS.has(request.action as number), 'action'),
  removeContainer: (request) => check(isContainerRef(request.container as ContainerRefLike), 'container reference'),
  getContainerLogs: (request) => check(isContainerRef(request.container as ContainerRefLike), 'container reference'),
  followContainerLogs: (request) => check(isContainerRef(request.container as ContainerRefLike), 'container reference'),
  execWordpressPasswordReset: (request) => check(isContainerRef(request.container as ContainerRefLike), 'container reference'),
  listContainers: (request) => check(Array.isArray(request.projectIds) && request.projectIds.every(isId), 'project ids'),
  watchContainerEvents: (request) => check(Array.isArray(request.projectIds) && request.projectIds.every(isId), 'project ids'),
  pullImage: (request) =>
    check(typeof request.image === 'string' && IMAGE_REFERENCE.test(request.image) && request.image.length <= 255, 'image reference') ?? check(isId(request.projectId), 'project id'),
  upsertRoute: (request, site) => {
    const route = request.route as { domain?: unknown; projectId?: unknown } | undefined;
    return check(isProjectDomain(route?.domain, site), 'route domain') ?? check(isId(route?.projectId), 'route project id');
  },
  removeRoute: (request, site) => check(isProjectDomain(request.domain, site), 'route domain'),
  setAuthorizedKeys: (request) =>
    check(isId(request.projectId), 'project id') ??
    check(
      Array.isArray(request.keys) &&
        (request.keys as Array<{ publicKey?: unknown; userId?: unknown }>).every(
          (key) => typeof key.publicKey === 'string' && parseSshPublicKey(key.publicKey)?.normalized === key.publicKey && isId(key.userId),
        ),
      'authorized keys',
    ),
  getSshAccess: (request) => check(isId(request.projectId), 'project id'),
  endSshSessions: (request) =>
    check(isId(request.projectId), 'project id') ?? check(Array.isArray(request.userIds) && request.userIds.length > 0 && request.userIds.every(isId), 'user ids'),
  createDatabase: (request) => {
    const match = typeof request.name === 'string' ? DATABASE_NAME.exec(request.name) : null;
    return (
      check(match !== null, 'database name') ??
      check(request.user === request.name, 'account name differs from the database name') ??
      check(Number(match?.[1]) === request.ownerUserId && isId(request.ownerUserId), 'database name of another user')
    );
  },
  dropDatabase: (request) =>
    check(typeof request.name === 'string' && DATABASE_NAME.test(request.name), 'database name') ??
    check(typeof request.user === 'string' && DATABASE_NAME.test(request.user), 'account name'),
  lockAccounts: (request) => check(isAccountList(request.users), 'account names'),
  unlockAccounts: (request) => check(isAccountList(request.users), 'account names'),
  listDatabases: (request) => check(request.namePrefix === '' || (typeof request.namePrefix === 'string' && /^u\d+_$/.test(request.namePrefix)), 'name prefix'),
  createPeer: (request) =>
    check(isWireguardKey(request.publicKey), 'public key is not base64 of 32 bytes') ??
    check(typeof request.identifier === 'string' && UUID.test(request.identifier), 'identifier') ??
    check(request.address === '' || (typeof request.address === 'string' && PEER_ADDRESS.test(request.address)), 'address') ??
    check(isId(request.userId), 'user id'),
  removePeer: (request) => check(isWireguardKey(request.publicKey), 'public key is not base64 of 32 bytes'),
  capture: (request, site) => check(isProjectDomain(request.domain, site), 'capture domain'),
  getDeployKey: (request) => check(isId(request.projectId), 'project id'),
  deployRepository: (request) => {
    const target = request.target as { webRoot?: unknown } | undefined;
    const hosts = Array.isArray(request.allowedHosts) ? (request.allowedHosts as string[]) : [];
    return (
      check(isId(request.projectId), 'project id') ??
      check(typeof request.address === 'string' && hosts.length > 0 && checkRepositoryAddress(request.address, { allowedHosts: hosts, allowHttp: request.allowHttp === true }).ok, 'repository address outside the policy') ??
      check(request.branch === '' || (typeof request.branch === 'string' && isSafeBranchName(request.branch)), 'branch') ??
      check(request.commit === '' || (typeof request.commit === 'string' && /^[0-9a-f]{40}$/.test(request.commit)), 'commit') ??
      check(typeof target?.webRoot === 'string' && target.webRoot.startsWith('/'), 'web root') ??
      check(typeof request.deployId === 'string' && /^\d+$/.test(request.deployId), 'deploy id')
    );
  },
};

/** Problems with the agent calls of one endpoint's runs (at most a few per method). */
export function agentCallProblems(calls: readonly FakeCall[], siteDomain: string): string[] {
  const problems: string[] = [];
  const perMethod = new Map<string, number>();
  for (const call of calls) {
    const rule = RULES[call.method];
    const problem = rule ? rule(call.request as Record<string, unknown>, siteDomain) : 'no rule for this agent method: add one to RULES in tests/property/invariants.ts';
    if (!problem) continue;
    const seen = perMethod.get(call.method) ?? 0;
    perMethod.set(call.method, seen + 1);
    if (seen < 3) problems.push(`agent ${call.method}: ${problem}: ${JSON.stringify(call.request).slice(0, 300)}`);
  }
  return problems;
}

type Row = Record<string, unknown>;

/** Rows that break a rule, as messages (at most a few per table). */
async function badRows(knex: Knex, table: string, columns: Array<string | Knex.Raw>, rule: (row: Row) => string | null): Promise<string[]> {
  const rows: Row[] = await knex(table).select(columns);
  return rows
    .flatMap((row) => {
      const problem = rule(row);
      return problem ? [`${table} row ${JSON.stringify(row).slice(0, 200)}: ${problem}`] : [];
    })
    .slice(0, 3);
}

/** What was written to the database holds only validated values where it matters. */
export async function databaseProblems(knex: Knex, siteDomain: string): Promise<string[]> {
  const courseFileTypes = new Set(Object.values(COURSE_FILE_TYPES));
  const checks = await Promise.all([
    badRows(knex, 'projects', ['id', 'name', 'domain', 'repro'], (row) =>
      check(isProjectName(row.name), 'name breaks the project rules') ??
      check(isProjectDomain(row.domain, siteDomain), 'domain breaks the project rules') ??
      check(row.repro === null || (typeof row.repro === 'string' && row.repro.length <= 300 && GIT_URL_PATTERN.test(row.repro)), 'repro is not a git address'),
    ),
    badRows(
      knex,
      'projects',
      [
        'id',
        'repro',
        'deploy_branch',
        'deploy_auth',
        'webhook_secret_sealed',
        // The stored HTTPS token (issue 35: project_git_tokens, bound to an address).
        knex.raw('(select t.token_sealed from project_git_tokens t where t.project_id = projects.id) as git_token_sealed'),
        knex.raw('(select t.address from project_git_tokens t where t.project_id = projects.id) as git_token_address'),
      ],
      (row) =>
      check(row.deploy_branch === null || (typeof row.deploy_branch === 'string' && isSafeBranchName(row.deploy_branch)), 'deploy branch') ??
      check(['none', 'deploy-key', 'token'].includes(row.deploy_auth as string), 'deploy auth') ??
      check(row.git_token_sealed === null || (typeof row.git_token_sealed === 'string' && row.git_token_sealed.startsWith('v1.')), 'token not sealed') ??
      check(row.git_token_sealed === null || row.deploy_auth === 'token', 'a token kept while the project does not sign in with one') ??
      check(row.git_token_sealed === null || row.git_token_address === credentialAddressOf(row.repro as string | null), 'a token kept for another address than the repository') ??
      check(row.webhook_secret_sealed === null || (typeof row.webhook_secret_sealed === 'string' && row.webhook_secret_sealed.startsWith('v1.')), 'webhook secret not sealed'),
    ),
    badRows(knex, 'project_deploys', ['id', 'status', 'trigger', 'branch', 'commit_hash'], (row) =>
      check(['queued', 'running', 'deployed', 'failed', 'superseded'].includes(row.status as string), 'status') ??
      check(['create', 'button', 'webhook', 'rollback'].includes(row.trigger as string), 'trigger') ??
      check(row.branch === null || (typeof row.branch === 'string' && isSafeBranchName(row.branch)), 'branch') ??
      check(row.commit_hash === null || (typeof row.commit_hash === 'string' && /^[0-9a-f]{40}$/.test(row.commit_hash)), 'commit'),
    ),
    badRows(knex, 'databases', ['id', 'user_id', 'name', 'db_user'], (row) =>
      check(typeof row.name === 'string' && DATABASE_NAME.exec(row.name)?.[1] === String(row.user_id), 'name') ?? check(row.db_user === row.name, 'account name'),
    ),
    badRows(knex, 'vpn_configs', ['id', 'identifier', 'address', 'public_key'], (row) =>
      check(typeof row.identifier === 'string' && UUID.test(row.identifier), 'identifier') ??
      check(typeof row.address === 'string' && PEER_ADDRESS.test(row.address), 'address') ??
      check(isWireguardKey(row.public_key), 'public key'),
    ),
    badRows(knex, 'groups', ['id', 'cohort'], (row) => check(typeof row.cohort === 'string' && COHORT_PATTERN.test(row.cohort) && row.cohort === row.cohort.toUpperCase(), 'cohort')),
    badRows(knex, 'introducees', ['id', 'name'], (row) => check(typeof row.name === 'string' && INTRODUCEE_NAME_PATTERN.test(row.name) && !row.name.endsWith('-'), 'name')),
    badRows(knex, 'docker_images', ['id', 'image', 'capabilities'], (row) =>
      check(typeof row.image === 'string' && IMAGE_REFERENCE.test(row.image), 'image reference') ??
      check(Array.isArray(row.capabilities) && row.capabilities.every((name) => allowedCapabilities.has(name as string)), 'capabilities outside the allow-list'),
    ),
    badRows(knex, 'course_files', ['id', 'storage_key', 'filename', 'type'], (row) =>
      check(typeof row.storage_key === 'string' && STORAGE_KEY.test(row.storage_key), 'storage key is not a generated one') ??
      check(typeof row.filename === 'string' && !/[/\\]/.test(row.filename) && ![...row.filename].some((c) => c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127) && row.filename !== '..', 'file name') ??
      check(courseFileTypes.has(row.type as string), 'type'),
    ),
    badRows(knex, 'ssh_keys', ['id', 'public_key', 'fingerprint'], (row) => {
      const parsed = typeof row.public_key === 'string' ? parseSshPublicKey(row.public_key) : null;
      return check(parsed !== null && parsed.normalized === row.public_key && parsed.fingerprint === row.fingerprint, 'public key');
    }),
  ]);
  return checks.flat();
}

/** Every file below `root`, relative to it. */
function filesBelow(root: string, dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesBelow(root, full) : [path.relative(root, full)];
  });
}

/**
 * Course files on disk: everything the control plane wrote below `root` is a file directly in
 * `<dataDir>/course-files` named by a generated storage key, and those files are exactly the
 * stored rows' (no file without a row, no row without its file).
 */
export async function fileStoreProblems(knex: Knex, root: string, dataDir: string): Promise<string[]> {
  const storeDir = path.relative(root, path.join(dataDir, 'course-files'));
  const files = filesBelow(root);
  const problems = files.filter((file) => path.dirname(file) !== storeDir || !STORAGE_KEY.test(path.basename(file))).map((file) => `a file outside the store or not named by a storage key: ${file}`);
  const onDisk = new Set(files.filter((file) => path.dirname(file) === storeDir).map((file) => path.basename(file)));
  const keys = new Set(await knex('course_files').pluck<string[]>('storage_key'));
  for (const key of keys) if (!onDisk.has(key)) problems.push(`course file row ${key} has no file`);
  for (const key of onDisk) if (!keys.has(key)) problems.push(`stored file ${key} has no row`);
  return problems.slice(0, 10);
}
