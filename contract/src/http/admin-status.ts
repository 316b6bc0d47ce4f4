/** The admin status page of the dev servers (issue 21): health, disks, containers, certificates, backups. */
import { adminStatusJson } from '../status.ts';
import { endpoint, json } from './endpoint.ts';

export const adminStatus = endpoint({
  method: 'GET',
  path: '/api/admin/status',
  access: 'admin',
  summary:
    "Every dev server's health, disks, containers, certificate and last backup (all agents asked at once, each within the agent deadline; one that does not answer is a row marked unreachable), and the control plane's own certificates and backup.",
  answer: json(adminStatusJson),
});

export const adminStatusEndpoints = [adminStatus];
