import type { Logger } from 'pino';
import type { AgentClient } from '../agent/agent-client.ts';
import { SSH_PORT_LABEL, type ContainerView } from '../agent/container-views.ts';

/**
 * Works out the `ssh student@{host} -p {port}` line of ssh containers without one agent call per
 * project: the port is the container's `devplein.ssh-port` label, the host (the same for every
 * container of this agent) comes from one GetSshAccess answer, remembered. Only a container
 * without the label costs a GetSshAccess call of its own.
 */
export class SshCommandResolver {
  private login: { host: string; user: string } | null = null;

  constructor(
    private readonly agent: Pick<AgentClient, 'ssh'>,
    private readonly logger: Logger,
  ) {}

  /** Commands for these containers by project id (null where unknown); never throws. */
  async commands(containers: ContainerView[]): Promise<Map<number, string | null>> {
    const result = new Map<number, string | null>();
    await Promise.all(
      containers.map(async (container) => {
        result.set(container.projectId, await this.command(container));
      }),
    );
    return result;
  }

  async command(container: ContainerView): Promise<string | null> {
    const port = Number(container.labels[SSH_PORT_LABEL] ?? 0);
    if (port > 0 && this.login) return format(this.login, port);
    try {
      const access = await this.agent.ssh.getAccess(container.projectId);
      if (access.host) this.login = { host: access.host, user: access.user || 'student' };
      const chosen = port > 0 ? port : access.port;
      return access.host && chosen > 0 ? format({ host: access.host, user: access.user || 'student' }, chosen) : null;
    } catch (error) {
      this.logger.debug({ err: error, projectId: container.projectId }, 'no ssh access for container');
      return null;
    }
  }
}

const format = (login: { host: string; user: string }, port: number): string => `ssh ${login.user}@${login.host} -p ${port}`;
