import type { Logger } from 'pino';
import type { AgentFleet } from '../agent/agent-fleet.ts';
import { SSH_PORT_LABEL, type ContainerView } from '../agent/container-views.ts';

/**
 * Works out the `ssh student@{host} -p {port}` line of ssh containers without one agent call per
 * project: the port is the container's `devplein.ssh-port` label, the host (the same for every
 * container of one dev server) comes from one GetSshAccess answer per dev server, remembered.
 * Only a container without the label costs a GetSshAccess call of its own.
 */
export class SshCommandResolver {
  /** Login host and user per dev server (agent link name). */
  private readonly logins = new Map<string, { host: string; user: string }>();

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
      const access = await link.client.ssh.getSshAccess(container.projectId);
      if (access.host) this.logins.set(link.name, { host: access.host, user: access.user || 'student' });
      const chosen = port > 0 ? port : access.port;
      return access.host && chosen > 0 ? format({ host: access.host, user: access.user || 'student' }, chosen) : null;
    } catch (error) {
      this.logger.debug({ err: error, projectId: container.projectId }, 'no ssh access for container');
      return null;
    }
  }
}

const format = (login: { host: string; user: string }, port: number): string => `ssh ${login.user}@${login.host} -p ${port}`;
