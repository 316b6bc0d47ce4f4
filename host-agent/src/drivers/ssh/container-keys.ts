import type { Logger } from 'pino';
import { LABELS } from '../docker/docker-driver.ts';
import { type ContainerAccount, isMissingPath, passwdEntry, readContainerEntry, SSH_USER } from '../docker/container-files.ts';
import { DockerError, engineMessage, engineStatus, translateDockerError } from '../docker/docker-errors.ts';
import type { ContainerInspectInfo, DockerEngine, EngineContainer } from '../docker/engine.ts';
import { type AuthorizedKeyLine, authorizedKeysArchive, authorizedKeysText, countKeyLines, keyLinesOf, type PresentKeyLine } from './authorized-keys.ts';
import { LEGACY_MOUNT_POINT, writeLegacyKeys } from './legacy-keys-folder.ts';

/** How a container got its keys. */
export type KeysWrittenTo = 'container' | 'legacy-folder';

/** A container the agent just made from an image, never started yet. */
export interface NewContainerRef {
  id: string;
  name: string;
  /** The image's id (sha256:…): the container's /etc/passwd is still the image's. */
  imageId: string;
}

/** What the container service needs: the keys of a container it just made (before its start). */
export interface SshKeyWriter {
  writeBeforeFirstStart(container: NewContainerRef, keys: AuthorizedKeyLine[]): Promise<void>;
}

export interface ContainerSshKeysOptions {
  docker: DockerEngine;
  /** AGENT_DATA_DIR: where the keys folders of legacy containers live. */
  dataDir: string;
  logger: Logger;
}

/** The read-only keys folder the containers of earlier agent versions have mounted, if any. */
export function legacyKeysMount(info: Pick<ContainerInspectInfo, 'Mounts'>): { Source: string } | undefined {
  return info.Mounts?.find((mount) => mount.Type === 'bind' && mount.Destination.replace(/\/+$/, '') === LEGACY_MOUNT_POINT);
}

/**
 * The members' keys inside a project container, written through the Docker API (putArchive
 * with entries owned by the container's `student` user), so the agent itself needs no root and
 * no host folder: the SSH server in the container sees files of the user logging in. Works on
 * created, stopped and running containers alike. Writes to one container run one at a time.
 */
export class ContainerSshKeys implements SshKeyWriter {
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly warnedLegacy = new Set<string>();
  /** The `student` account of each image id seen at a create (an image id names fixed content). */
  private readonly imageAccounts = new Map<string, Promise<ContainerAccount>>();

  constructor(private readonly options: ContainerSshKeysOptions) {}

  /** Replaces the container's authorized_keys (none: an empty file, so nobody logs in). */
  write(containerId: string, keys: AuthorizedKeyLine[]): Promise<KeysWrittenTo> {
    const text = authorizedKeysText(keys);
    return this.oneAtATime(containerId, async () => {
      const container = this.options.docker.container(containerId);
      const info = await this.engine(`inspecting ${containerId.slice(0, 12)}`, () => container.inspect());
      const name = info.Name.replace(/^\//, '');
      if (legacyKeysMount(info)) return this.writeLegacy(info, name, text);
      const account = await this.account(container, name);
      await this.putKeys(container, account, text, name);
      return 'container';
    });
  }

  /** authorized_keys (and its folder) into the account's home, owned by the account. */
  private async putKeys(container: EngineContainer, account: ContainerAccount, text: string, name: string): Promise<void> {
    const archive = await authorizedKeysArchive(account, text);
    try {
      await container.putArchive(archive, account.home);
    } catch (error) {
      if (isMissingPath(error)) {
        throw new DockerError('failed-precondition', `the home folder ${account.home} of ${SSH_USER} does not exist in container ${name}`, { cause: error });
      }
      if (engineStatus(error) === 403) throw new DockerError('failed-precondition', `cannot write the SSH keys into container ${name}: ${engineMessage(error)}`, { cause: error });
      throw translateDockerError(error, `writing the SSH keys into ${name}`);
    }
  }

  /**
   * The keys of a container this agent just made, before its first start: one write into the
   * container, with the account read once per image (a class's creates share it). No inspect:
   * such a container has no keys folder of an earlier agent, and its passwd is the image's.
   */
  writeBeforeFirstStart(created: NewContainerRef, keys: AuthorizedKeyLine[]): Promise<void> {
    const text = authorizedKeysText(keys);
    return this.oneAtATime(created.id, async () => {
      const container = this.options.docker.container(created.id);
      const account = await this.imageAccount(created, container);
      await this.putKeys(container, account, text, created.name);
    });
  }

  private imageAccount(created: NewContainerRef, container: EngineContainer): Promise<ContainerAccount> {
    let account = this.imageAccounts.get(created.imageId);
    if (!account) {
      account = this.account(container, created.name);
      this.imageAccounts.set(created.imageId, account);
      // A failure (no student user, the engine away) is not remembered: the next create asks again.
      account.catch(() => this.imageAccounts.delete(created.imageId));
    }
    return account;
  }

  /** How many keys the container's authorized_keys holds (0 when there is none). */
  async count(containerId: string): Promise<number> {
    return countKeyLines(await this.readText(containerId));
  }

  /** The key lines of the container's authorized_keys (none when there is no file). */
  async read(containerId: string): Promise<PresentKeyLine[]> {
    return keyLinesOf(await this.readText(containerId));
  }

  private async readText(containerId: string): Promise<string> {
    const container = this.options.docker.container(containerId);
    const name = containerId.slice(0, 12);
    const { home } = await this.account(container, name);
    const file = await this.readFile(container, `${home}/.ssh/authorized_keys`, name);
    return file ? file.toString('utf8') : '';
  }

  /** The `student` account of the container's image, from its /etc/passwd. */
  private async account(container: EngineContainer, name: string): Promise<ContainerAccount> {
    const passwd = await this.readFile(container, '/etc/passwd', name);
    if (!passwd) throw new DockerError('failed-precondition', `container ${name} has no /etc/passwd, so no user ${SSH_USER} to log in as`);
    const account = passwdEntry(passwd.toString('utf8'), SSH_USER);
    if (!account) {
      throw new DockerError('failed-precondition', `the image of container ${name} has no usable user ${SSH_USER} in /etc/passwd (uid and gid numbers up to 262143, an absolute home); an image with SSH needs one`);
    }
    return account;
  }

  /** A regular file of the container (through getArchive); undefined when it does not exist. */
  private async readFile(container: EngineContainer, path: string, name: string): Promise<Buffer | undefined> {
    const file = await readContainerEntry(container, path, (error) => translateDockerError(error, `reading ${path} in ${name}`));
    if (!file) return undefined;
    if (file.type !== 'file') throw new DockerError('failed-precondition', `${path} in container ${name} is a ${file.type}, not a file`);
    return file.data;
  }

  private async writeLegacy(info: ContainerInspectInfo, name: string, text: string): Promise<KeysWrittenTo> {
    const projectId = Number(info.Config.Labels?.[LABELS.projectId]);
    if (!Number.isSafeInteger(projectId) || projectId <= 0) throw new Error(`container ${name} has a keys folder mounted but no project id`);
    await writeLegacyKeys(this.options.dataDir, projectId, text);
    if (!this.warnedLegacy.has(info.Id)) {
      this.warnedLegacy.add(info.Id);
      this.options.logger.warn(
        { containerId: info.Id, name, projectId },
        'this container still has the read-only keys folder of an earlier agent mounted: its keys go to that host folder, which SSH accepts only while the agent runs as root; re-create the container to fix it (see docs/operations.md)',
      );
    }
    return 'legacy-folder';
  }

  private async engine<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw translateDockerError(error, what);
    }
  }

  /** Runs `work` after the writes already queued for the container (tar entries never interleave). */
  private oneAtATime<T>(containerId: string, work: () => Promise<T>): Promise<T> {
    const before = this.queues.get(containerId) ?? Promise.resolve();
    const result = before.then(work, work);
    const settled = result.catch(() => undefined);
    this.queues.set(containerId, settled);
    void settled.then(() => {
      if (this.queues.get(containerId) === settled) this.queues.delete(containerId);
    });
    return result;
  }
}
