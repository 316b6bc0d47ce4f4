/**
 * Every endpoint declared in the contract, in the order of the control plane's routers. The
 * routes × roles test checks that each is registered and in its table, and that no registered
 * route is missing here; the OpenAPI document is made from this list.
 */
import { endpoint, json, type Endpoint } from './endpoint.ts';
import { z } from 'zod';
import { adminAuditEndpoints } from './admin-audit.ts';
import { exportEndpoints } from './admin-exports.ts';
import { adminProjectEndpoints } from './admin-projects.ts';
import { adminUserEndpoints } from './admin-users.ts';
import { groupEndpoints } from './admin-groups.ts';
import { teamEndpoints } from './admin-teams.ts';
import { databaseEndpoints } from './databases.ts';
import { projectRequestEndpoints } from './project-requests.ts';
import { dockerImageEndpoints } from './docker-images.ts';
import { introduceeEndpoints } from './introducees.ts';
import { licenseEndpoints } from './licenses.ts';
import { sshKeyEndpoints } from './ssh-keys.ts';
import { vpnEndpoints } from './vpn.ts';
import { userDockerEndpoints } from './user-dockers.ts';
import { userSearchEndpoints } from './user-search.ts';
import { wordpressEndpoints } from './wordpress.ts';
import { adminAgentEndpoints } from './admin-agent.ts';
import { adminStatusEndpoints } from './admin-status.ts';
import { adminOverviewEndpoints } from './admin-overview.ts';
import { adminAgentLinkEndpoints } from './admin-agents.ts';
import { agentJoinEndpoints } from './agent-join.ts';
import { dbAdminEndpoints } from './db-admin.ts';
import { healthEndpoints } from './health.ts';
import { sessionEndpoints } from './session.ts';
import { authEndpoints } from './auth.ts';
import { broadcastingEndpoints } from './broadcasting.ts';
import { siteEndpoints } from './sites.ts';
import { thumbnailEndpoints } from './thumbnails.ts';
import { userEndpoints } from './user.ts';
import { adminDockerEndpoints } from './admin-dockers.ts';
import { deployEndpoints } from './deploys.ts';
import { levelEndpoints } from './levels.ts';
import { adminLevelEndpoints } from './admin-levels.ts';

/** This list as an OpenAPI 3.1 document (contract/src/http/openapi.ts; docs/http-api.md). */
export const openApiEndpoint = endpoint({
  method: 'GET',
  path: '/api/openapi.json',
  access: 'admin',
  summary: 'This API as an OpenAPI 3.1 document, made from the declarations in contract/src/http.',
  answer: json(z.record(z.string(), z.unknown())),
});

export const ENDPOINTS: readonly Endpoint[] = [
  ...sshKeyEndpoints,
  ...adminUserEndpoints,
  ...exportEndpoints,
  ...teamEndpoints,
  ...groupEndpoints,
  ...adminProjectEndpoints,
  ...userSearchEndpoints,
  ...licenseEndpoints,
  ...introduceeEndpoints,
  ...projectRequestEndpoints,
  ...adminAuditEndpoints,
  ...userDockerEndpoints,
  ...wordpressEndpoints,
  ...dockerImageEndpoints,
  ...databaseEndpoints,
  ...vpnEndpoints,
  ...adminAgentEndpoints,
  ...adminStatusEndpoints,
  ...adminOverviewEndpoints,
  ...adminAgentLinkEndpoints,
  ...agentJoinEndpoints,
  ...dbAdminEndpoints,
  ...healthEndpoints,
  ...authEndpoints,
  ...sessionEndpoints,
  ...broadcastingEndpoints,
  ...siteEndpoints,
  ...thumbnailEndpoints,
  ...userEndpoints,
  ...adminDockerEndpoints,
  ...deployEndpoints,
  ...levelEndpoints,
  ...adminLevelEndpoints,
  openApiEndpoint,
];
