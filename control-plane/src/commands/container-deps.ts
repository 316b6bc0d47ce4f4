import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AgentFleet } from '../agent/agent-fleet.ts';
import type { RealtimeTrigger } from '../realtime/container-notices.ts';
import type { SshCommandResolver } from '../lib/ssh-command.ts';
import type { DeployQueue } from '../jobs/deploy-queue.ts';

/** What the container commands and reads of the dockers page need, built once per app (routes/route-table.ts). */
export interface ContainerCommandDeps {
  knex: Knex;
  agents: AgentFleet;
  realtime: RealtimeTrigger;
  logger: Logger;
  sshCommands: SshCommandResolver;
  /** The git deploy queue: a new container of a project with a repository gets its first deploy. Absent: none is queued. */
  deploys?: DeployQueue;
}
