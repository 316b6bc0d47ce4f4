import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AgentFleet } from '../agent/agent-fleet.ts';
import type { AppServices } from '../app-context.ts';

/** What the container commands and reads of the dockers page need: the app's deps and services (routes/user-dockers). */
export interface ContainerCommandDeps {
  knex: Knex;
  agents: AgentFleet;
  logger: Logger;
  /** The container channels' sender (one per app). */
  notices: AppServices['containerNotices'];
  sshCommands: AppServices['sshCommands'];
  /** The git deploy queue: a new container of a project with a repository gets its first deploy. Absent: none is queued. */
  deploys?: AppServices['deploys'];
}
