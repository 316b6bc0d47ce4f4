/**
 * Project requests by students (spec §5, §7): the request form's image options, a new request,
 * one's own request for the edit form, editing and deleting it. Members and admins; to anyone
 * else a project does not exist (404). The body's rules are the form's (validation/projectRequest.ts);
 * the server parses it with its dev servers' site domains and the school's git policy.
 */
import { z } from 'zod';
import { dockerImageChoiceJson, projectJson } from '../projects.ts';
import { projectRequestSchema } from '../validation/projectRequest.ts';
import { projectIdParams } from './admin-projects.ts';
import { endpoint, json } from './endpoint.ts';

/** The body's shape: the domain's dev servers and the git policy are the server's to check. */
const projectRequestBody = projectRequestSchema(undefined);

export const listImageChoices = endpoint({
  method: 'GET',
  path: '/api/dockers',
  access: 'active',
  summary: "The request form's image options {id, name}.",
  answer: json(z.array(dockerImageChoiceJson)),
});

export const requestProject = endpoint({
  method: 'POST',
  path: '/api/user/project',
  access: 'active',
  summary: 'A new project request (awaiting approval), the creator its first member; students have a quota. 201 with the project; 422 per form field.',
  body: projectRequestBody,
  answer: json(projectJson),
});

export const ownProject = endpoint({
  method: 'GET',
  path: '/api/user/project/:id',
  access: 'active',
  summary: 'A request as the edit form loads it (its members and admins).',
  params: projectIdParams,
  answer: json(projectJson),
});

export const editProject = endpoint({
  method: 'PUT',
  path: '/api/user/project/:id',
  access: 'active',
  summary:
    "Edits a request (its members and admins). A student's change to an approved project puts it back to awaiting approval (its container suspended); the container's SSH keys follow the members at once.",
  params: projectIdParams,
  body: projectRequestBody,
  answer: json(projectJson),
});

export const deleteProjectRequest = endpoint({
  method: 'DELETE',
  path: '/api/user/project/:id',
  access: 'active',
  summary: 'Deletes a project (its members and admins): its container first (503 while its dev server does not answer, the project stays), then the row. 204.',
  params: projectIdParams,
  answer: { kind: 'empty' },
});

export const projectRequestEndpoints = [listImageChoices, requestProject, ownProject, editProject, deleteProjectRequest];
