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

/** This list as an OpenAPI 3.1 document (contract/src/http/openapi.ts; docs/http-api.md). */
export const openApiEndpoint = endpoint({
  method: 'GET',
  path: '/api/openapi.json',
  access: 'admin',
  summary: 'This API as an OpenAPI 3.1 document, made from the declarations in contract/src/http.',
  answer: json(z.record(z.string(), z.unknown())),
});

export const ENDPOINTS: readonly Endpoint[] = [...sshKeyEndpoints, ...adminUserEndpoints, ...exportEndpoints, ...teamEndpoints, ...groupEndpoints, ...adminProjectEndpoints, ...userSearchEndpoints, ...licenseEndpoints, ...introduceeEndpoints, ...projectRequestEndpoints, ...adminAuditEndpoints, ...userDockerEndpoints, ...wordpressEndpoints, ...dockerImageEndpoints, ...databaseEndpoints, ...vpnEndpoints, openApiEndpoint];
