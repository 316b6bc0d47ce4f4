/**
 * The approvals screen (spec §2, §7): projects awaiting approval (admins, and members whose first
 * team is team 1: their profile counts them), every approved project (admins), the approve/reject
 * toggle and deleting a project (admins).
 */
import { z } from 'zod';
import { projectJson } from '../projects.ts';
import { GIT_URL_PATTERN, PROJECT_MESSAGES, PROJECT_REPRO_MAX } from '../validation/projectRequest.ts';
import { endpoint, json } from './endpoint.ts';
import { recordId } from './ids.ts';

/** :id of /api/user/project/{id} and /api/admin/projects/{id}. */
export const projectIdParams = z.object({ id: recordId('Ongeldig projectnummer.') });

/**
 * PUT's body {git?}: an optional git address to store with the decision. The server checks it
 * against the school's git policy too (issue 23), as the request form's address is.
 */
export const projectDecisionBody = z.object({
  git: z
    .union([z.string(), z.null()])
    .optional()
    .transform((value) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null))
    .refine((value) => value === null || (value.length <= PROJECT_REPRO_MAX && GIT_URL_PATTERN.test(value)), PROJECT_MESSAGES.repro),
});

export const listAdminProjects = endpoint({
  method: 'GET',
  path: '/api/admin/projects',
  // Admins, and members whose first team is team 1 (the route decides: not one of the declared roles).
  access: 'active',
  summary: 'The projects awaiting approval (admins and members of team 1); ?all=true: every approved project (admins only).',
  query: z.object({ all: z.enum(['true', 'false', '1', '0'], { error: 'Gebruik all=true of laat all weg.' }).optional() }),
  answer: json(z.array(projectJson)),
});

export const decideOnProject = endpoint({
  method: 'PUT',
  path: '/api/admin/projects/:id',
  access: 'admin',
  summary: 'Approves a project awaiting approval or rejected, rejects an approved one (with an optional git address stored with it); answers the new state.',
  params: projectIdParams,
  body: projectDecisionBody,
  answer: json(z.strictObject({ validated: z.boolean() })),
});

export const deleteAdminProject = endpoint({
  method: 'DELETE',
  path: '/api/admin/projects/:id',
  access: 'admin',
  summary: 'Deletes a project (its container first; 503 while its dev server does not answer, the project stays): 204.',
  params: projectIdParams,
  answer: { kind: 'empty' },
});

export const adminProjectEndpoints = [listAdminProjects, decideOnProject, deleteAdminProject];
