import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AgentFleet } from '../agent/agent-fleet.ts';
import type { RealtimeTrigger } from '../realtime/container-notices.ts';
import type { SshCommandResolver } from '../lib/ssh-command.ts';

/** What the container commands and reads of the dockers page need, built once per app (routes/route-table.ts). */
export interface ContainerCommandDeps {
  knex: Knex;
  agents: AgentFleet;
  realtime: RealtimeTrigger;
  logger: Logger;
  sshCommands: SshCommandResolver;
}
