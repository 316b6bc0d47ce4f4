/**
 * A project container of the static test image (busybox httpd serving /www) made through the
 * agent's CreateContainer, as the git deploy tests and the deploy bench need one: no SSH, no
 * capabilities, owner 1, domain `{name}.dev.test`.
 */
import type { ContainerServiceClient } from '@devplein/proto/container';
import { unaryCall } from './agent-calls.ts';

/** The static image the deploy tests build (ensureBusyboxImage with httpd on /www). */
export const STATIC_DEPLOY_IMAGE = 'devplein-test/static-deploy:1';

/** CreateContainer of a static site; its container id. `name` is letters, digits and hyphens. */
export async function createStaticSite(containers: ContainerServiceClient, projectId: number, name: string): Promise<string> {
  const made = await unaryCall(containers, containers.createContainer, {
    projectId,
    name,
    image: STATIC_DEPLOY_IMAGE,
    domain: `${name}.dev.test`,
    ownerUserId: 1,
    memberUserIds: [1],
    wordpress: false,
    limits: undefined,
    capabilities: { add: [] },
    authorizedKeys: [],
    ssh: false,
  });
  return made.container?.id ?? '';
}
