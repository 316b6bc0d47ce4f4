/**
 * The image options of the request form (spec §3 "Docker image option"), admins only, audited:
 * the list, a new option, its Linux capabilities and git deploy settings, and deleting one (409
 * while projects use it; option 1 'Anders' is the form's "teacher picks" and stays).
 */
import { z } from 'zod';
import { dockerImageOptionJson } from '../dockers.ts';
import { CAPABILITY_MESSAGE, CONTAINER_CAPABILITIES, type ContainerCapability, DEFAULT_CAPABILITIES } from '../validation/containerCapabilities.ts';
import { IMAGE_REFERENCE, IMAGE_REFERENCE_MESSAGE } from '../validation/imageReference.ts';
import { imageDeploySchema, NO_DEPLOY } from '../validation/imageDeploy.ts';
import { endpoint, json } from './endpoint.ts';
import { recordId } from './ids.ts';

const allowedCapabilities: ReadonlySet<string> = new Set(CONTAINER_CAPABILITIES);

/**
 * Linux capabilities of the option's containers: names from the allow-list (the agent refuses
 * any other too). The errors name the field, not an index, so the form shows them at the
 * checkboxes. Stored deduplicated in allow-list order.
 */
const capabilitiesField = z
  // Items are checked by the refine, not by an item schema, so every error is on `capabilities`.
  .array(z.unknown(), { error: 'capabilities moet een lijst van rechten zijn.' })
  .max(CONTAINER_CAPABILITIES.length * 2, CAPABILITY_MESSAGE)
  .refine((names) => names.every((name) => typeof name === 'string' && allowedCapabilities.has(name)), { message: CAPABILITY_MESSAGE, abort: true })
  .transform((names): ContainerCapability[] => CONTAINER_CAPABILITIES.filter((name) => names.includes(name)));

/** POST's body; capabilities default to the previous set (DEFAULT_CAPABILITIES), deploy to none (git deploy not offered). */
export const imageOptionBody = z.object({
  name: z.string({ error: 'Geef een naam.' }).trim().min(2, 'De naam moet minstens 2 tekens hebben.').max(100, 'De naam mag hoogstens 100 tekens hebben.'),
  image: z.string({ error: IMAGE_REFERENCE_MESSAGE }).trim().max(255, IMAGE_REFERENCE_MESSAGE).regex(IMAGE_REFERENCE, IMAGE_REFERENCE_MESSAGE),
  ssh: z.boolean({ error: 'ssh moet waar of onwaar zijn.' }).default(false),
  wordpress: z.boolean({ error: 'wordpress moet waar of onwaar zijn.' }).default(false),
  capabilities: capabilitiesField.default([...DEFAULT_CAPABILITIES]),
  deploy: imageDeploySchema.default({ ...NO_DEPLOY }),
});

/** PATCH's body: what the option's new containers may do, and where its git deploys put the code. At least one of the two. */
const imageOptionChangeBody = z
  .object({
    capabilities: capabilitiesField.optional(),
    deploy: imageDeploySchema.optional(),
  })
  .refine((body) => body.capabilities !== undefined || body.deploy !== undefined, { message: 'Geef capabilities of deploy mee.', path: ['body'] });

const imageOptionParams = z.object({ id: recordId('Ongeldig nummer.') });

export const listImageOptions = endpoint({
  method: 'GET',
  path: '/api/admin/dockers/images',
  access: 'admin',
  summary: 'Every image option with how many projects use it.',
  answer: json(z.array(dockerImageOptionJson)),
});

export const createImageOption = endpoint({
  method: 'POST',
  path: '/api/admin/dockers/images',
  access: 'admin',
  summary: 'A new image option (201 with it).',
  body: imageOptionBody,
  answer: json(dockerImageOptionJson),
});

export const changeImageOption = endpoint({
  method: 'PATCH',
  path: '/api/admin/dockers/images/:id',
  access: 'admin',
  summary: "Changes an option's Linux capabilities and/or where git deploys put the code; answers the option.",
  params: imageOptionParams,
  body: imageOptionChangeBody,
  answer: json(dockerImageOptionJson),
});

export const deleteImageOption = endpoint({
  method: 'DELETE',
  path: '/api/admin/dockers/images/:id',
  access: 'admin',
  summary: "Deletes an option (204); 409 while projects use it, and option 1 'Anders' stays.",
  params: imageOptionParams,
  answer: { kind: 'empty' },
});

export const dockerImageEndpoints = [listImageOptions, createImageOption, changeImageOption, deleteImageOption];
