import type { Logger } from 'pino';
import type { AgentFleet, AgentLink } from '../agent/agent-fleet.ts';
import { SSH_PORT_LABEL, type ContainerView, type SshAccessView } from '../agent/container-views.ts';

/**
 * Works out the `ssh student@{host} -p {port}` line of ssh containers without one agent call per
 * project: the port is the container's `devplein.ssh-port` label, the host (the same for every
 * container of one dev server) comes from one GetSshAccess answer per dev server, remembered.
 * Only a container without the label costs a GetSshAccess call of its own.
 */
export class SshCommandResolver {
  /** Login host and user per dev server (agent link name). */
  private readonly logins = new Map<string, { host: string; user: string }>();
  /** The GetSshAccess call asking a dev server's login while it runs: a burst of new containers shares it. */
  private readonly loginLookups = new Map<string, Promise<SshAccessView>>();

  constructor(
    private readonly agents: Pick<AgentFleet, 'link'>,
    private readonly logger: Logger,
  ) {}

  /** Commands for these containers (each on dev server `host`) by project id (null where unknown); never throws. */
  async commands(containers: Array<{ container: ContainerView; host: string | null }>): Promise<Map<number, string | null>> {
    const result = new Map<number, string | null>();
    await Promise.all(
      containers.map(async ({ container, host }) => {
        result.set(container.projectId, await this.command(container, host));
      }),
    );
    return result;
  }

  async command(container: ContainerView, host: string | null): Promise<string | null> {
    const link = this.agents.link(host);
    const port = Number(container.labels[SSH_PORT_LABEL] ?? 0);
    const login = this.logins.get(link.name);
    if (port > 0 && login) return format(login, port);
    try {
      const access = port > 0 ? await this.sharedLookup(link, container.projectId) : await link.client.ssh.getSshAccess(container.projectId);
      if (access.host) this.logins.set(link.name, { host: access.host, user: access.user || 'student' });
      const chosen = port > 0 ? port : access.port;
      return access.host && chosen > 0 ? format({ host: access.host, user: access.user || 'student' }, chosen) : null;
    } catch (error) {
      this.logger.debug({ err: error, projectId: container.projectId }, 'no ssh access for container');
      return null;
    }
  }

  /**
   * GetSshAccess of this project, or the one already running for the same dev server (only its
   * host and user are used); when that one fails (its project's container went), its own.
   */
  private sharedLookup(link: AgentLink, projectId: number): Promise<SshAccessView> {
    const running = this.loginLookups.get(link.name);
    if (running) return running.catch(() => link.client.ssh.getSshAccess(projectId));
    const lookup = link.client.ssh.getSshAccess(projectId).finally(() => this.loginLookups.delete(link.name));
    this.loginLookups.set(link.name, lookup);
    return lookup;
  }
}

const format = (login: { host: string; user: string }, port: number): string => `ssh ${login.user}@${login.host} -p ${port}`;
