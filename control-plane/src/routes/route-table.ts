import type { AppDeps, AppRouter } from '../app-context.ts';
import { userRoutes } from './user/user.ts';
import { adminAgentRoutes } from './admin/agent.ts';
import { adminStatusRoutes } from './admin-status/admin-status.ts';
import { adminOverviewRoutes } from './admin-overview/admin-overview.ts';
import { adminAgentLinkRoutes } from './admin-agents/admin-agents.ts';
import { agentJoinRoutes } from './agent-join/agent-join.ts';
import { broadcastingRoutes } from './broadcasting/broadcasting.ts';
import { healthRoutes } from './health/health.ts';
import { sitesRoutes } from './sites/sites.ts';
import { thumbnailRoutes } from './thumbnails/thumbnails.ts';
import { levelRoutes } from './levels/levels.ts';
import { sshKeyRoutes } from './ssh-keys/ssh-keys.ts';
import { adminLevelRoutes } from './admin-levels/admin-levels.ts';
import { adminProjectRoutes } from './admin-projects/admin-projects.ts';
import { adminUserRoutes } from './admin-users/admin-users.ts';
import { adminExportRoutes } from './admin-exports/admin-exports.ts';
import { adminTeamRoutes } from './admin-teams/admin-teams.ts';
import { adminGroupRoutes } from './admin-groups/admin-groups.ts';
import { userSearchRoutes } from './user-search/user-search.ts';
import { licenseRoutes } from './licenses/licenses.ts';
import { introduceeRoutes } from './introducees/introducees.ts';
import { projectRequestRoutes } from './project-requests/project-requests.ts';
import { adminAuditRoutes } from './admin-audit/admin-audit.ts';
import { userDockerRoutes } from './user-dockers/user-dockers.ts';
import { wordpressRoutes } from './wordpress/wordpress.ts';
import { dockerImageRoutes } from './docker-images/docker-images.ts';
import { adminDockerRoutes } from './admin-dockers/admin-dockers.ts';
import { databaseRoutes } from './databases/databases.ts';
import { vpnRoutes } from './vpn/vpn.ts';
import { dbAdminRoutes } from './db-admin/db-admin.ts';
import { sessionRoutes } from './session/session.ts';
import { signInRoutes } from './sign-in/sign-in.ts';
import { deployRoutes } from './deploys/deploys.ts';
import { deployHookRoutes } from './deploy-hooks/deploy-hooks.ts';
import { openApiRoutes } from './openapi/openapi.ts';

/** Every router of the API and the server pages; the routes × roles test walks this list. */
export function appRouters(deps: AppDeps): AppRouter[] {
  return [
    userRoutes(deps),
    adminAgentRoutes(deps),
    adminStatusRoutes(deps),
    adminOverviewRoutes(deps),
    adminAgentLinkRoutes(deps),
    agentJoinRoutes(deps),
    broadcastingRoutes(deps),
    healthRoutes(deps),
    sitesRoutes(deps),
    thumbnailRoutes(deps),
    levelRoutes(deps),
    sshKeyRoutes(deps),
    adminLevelRoutes(deps),
    adminProjectRoutes(deps),
    adminUserRoutes(deps),
    adminExportRoutes(deps),
    adminTeamRoutes(deps),
    adminGroupRoutes(deps),
    userSearchRoutes(deps),
    licenseRoutes(deps),
    introduceeRoutes(deps),
    projectRequestRoutes(deps),
    adminAuditRoutes(deps),
    userDockerRoutes(deps),
    wordpressRoutes(deps),
    // Before adminDockerRoutes: its /api/admin/dockers/:name would take /api/admin/dockers/images.
    dockerImageRoutes(deps),
    adminDockerRoutes(deps),
    databaseRoutes(deps),
    vpnRoutes(deps),
    dbAdminRoutes(deps),
    signInRoutes(deps),
    sessionRoutes(deps),
    deployRoutes(deps),
    deployHookRoutes(deps),
    openApiRoutes(),
  ];
}
