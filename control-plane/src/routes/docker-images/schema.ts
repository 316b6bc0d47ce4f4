import { z } from 'zod';
import { IMAGE_REFERENCE, IMAGE_REFERENCE_MESSAGE } from '@devplein/contract/validation/imageReference';
import {
  CAPABILITY_MESSAGE,
  CONTAINER_CAPABILITIES,
  type ContainerCapability,
  DEFAULT_CAPABILITIES,
} from '@devplein/contract/validation/containerCapabilities';
import { imageDeploySchema, NO_DEPLOY } from '@devplein/contract/validation/imageDeploy';

const allowedCapabilities: ReadonlySet<string> = new Set(CONTAINER_CAPABILITIES);

/**
 * Linux capabilities of the option's containers: names from the allow-list (the agent refuses
 * any other too). The errors name the field, not an index, so the form shows them at the
 * checkboxes. Stored deduplicated in allow-list order.
 */
export const capabilitiesField = z
  // Items are checked by the refine, not by an item schema, so every error is on `capabilities`.
  .array(z.unknown(), { error: 'capabilities moet een lijst van rechten zijn.' })
  .max(CONTAINER_CAPABILITIES.length * 2, CAPABILITY_MESSAGE)
  .refine((names) => names.every((name) => typeof name === 'string' && allowedCapabilities.has(name)), { message: CAPABILITY_MESSAGE, abort: true })
  .transform((names): ContainerCapability[] => CONTAINER_CAPABILITIES.filter((name) => names.includes(name)));

/**
 * POST /api/admin/dockers/images {name, image, ssh, wordpress, capabilities, deploy}; capabilities
 * default to the previous set (DEFAULT_CAPABILITIES), deploy to none (git deploy not offered).
 */
export const imageOptionBody = z.object({
  name: z.string({ error: 'Geef een naam.' }).trim().min(2, 'De naam moet minstens 2 tekens hebben.').max(100, 'De naam mag hoogstens 100 tekens hebben.'),
  image: z.string({ error: IMAGE_REFERENCE_MESSAGE }).trim().max(255, IMAGE_REFERENCE_MESSAGE).regex(IMAGE_REFERENCE, IMAGE_REFERENCE_MESSAGE),
  ssh: z.boolean({ error: 'ssh moet waar of onwaar zijn.' }).default(false),
  wordpress: z.boolean({ error: 'wordpress moet waar of onwaar zijn.' }).default(false),
  capabilities: capabilitiesField.default([...DEFAULT_CAPABILITIES]),
  deploy: imageDeploySchema.default({ ...NO_DEPLOY }),
});

/**
 * PATCH /api/admin/dockers/images/{id} {capabilities?, deploy?}: what the option's new containers
 * may do, and where its git deploys put the code. At least one of the two.
 */
export const imageOptionChangeBody = z
  .object({
    capabilities: capabilitiesField.optional(),
    deploy: imageDeploySchema.optional(),
  })
  .refine((body) => body.capabilities !== undefined || body.deploy !== undefined, { message: 'Geef capabilities of deploy mee.', path: ['body'] });

export const imageOptionParams = z.object({
  id: z.coerce.number({ error: 'Ongeldig nummer.' }).int('Ongeldig nummer.').positive('Ongeldig nummer.').max(2_147_483_647, 'Ongeldig nummer.'),
});
