/*
 * The docker request form rules of spec §5 and §9, shared by the web form and the control plane
 * (one definition). Pure TypeScript plus zod: no DOM, no Node APIs.
 */
import { BRANCH_MESSAGE, checkRepositoryAddress, isSafeBranchName, type RepositoryAddressPolicy } from './repositoryAddress.ts';
import { z } from 'zod';

/** §9: minimum lengths. */
export const PROJECT_NAME_MIN = 2;
/** The name becomes a container name and a DNS label: at most 63 characters. */
export const PROJECT_NAME_MAX = 63;
export const PROJECT_DOMAIN_MIN = 4;
export const PROJECT_DOMAIN_MAX = 253;
export const PROJECT_DESCRIPTION_MIN = 40;
export const PROJECT_DESCRIPTION_MAX = 5000;
export const PROJECT_REPRO_MAX = 300;
/** Members per project (a bound on the list; group projects have a handful). */
export const PROJECT_MEMBERS_MAX = 20;

/** §5: the image select's "nothing chosen" value. */
export const NO_DOCKER_IMAGE = -1;
/** §9: image option 1 is special: the teacher still has to pick an image, so it is never approved as is. */
export const OTHER_DOCKER_IMAGE = 1;

/** Starts with a letter; then letters a-z and hyphens; 2..63 characters. */
export const PROJECT_NAME_PATTERN = /^[a-z][a-z-]{1,62}$/;

/**
 * §5's domain shape ("letters/dots, a dot, then at least 2 letters"), widened to the hyphens
 * and digits that project names and host names contain: dot-separated labels of a-z, 0-9 and
 * inner hyphens, ending in a label of at least 2 letters.
 */
export const PROJECT_DOMAIN_PATTERN = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,}$/;

/** A git clone address: https://host/path or git@host:path. */
export const GIT_URL_PATTERN = /^(?:https:\/\/[^\s/@]+(?::\d+)?\/\S+|git@[A-Za-z0-9.-]+:\S+)$/;

export const PROJECT_MESSAGES = {
  nameTooShort: `De naam moet minstens ${PROJECT_NAME_MIN} tekens lang zijn.`,
  nameTooLong: `De naam mag maximaal ${PROJECT_NAME_MAX} tekens lang zijn.`,
  nameShape: 'De naam mag alleen kleine letters (a-z) en streepjes bevatten en moet met een letter beginnen.',
  domainTooShort: `Het domein moet minstens ${PROJECT_DOMAIN_MIN} tekens lang zijn.`,
  domainShape: 'Dit is geen geldig domein (bijvoorbeeld mijn-site.dev.school.nl).',
  domainOutside: (siteDomains: string | readonly string[]) => `Het domein moet eindigen op ${[siteDomains].flat().map((domain) => `.${domain}`).join(' of ')}.`,
  imageRequired: 'Kies een image.',
  descriptionTooShort: `De beschrijving moet minstens ${PROJECT_DESCRIPTION_MIN} tekens lang zijn.`,
  descriptionTooLong: `De beschrijving mag maximaal ${PROJECT_DESCRIPTION_MAX} tekens lang zijn.`,
  visible: 'Kies of het project zichtbaar is.',
  repro: `Geef een git-adres dat begint met https:// of git@ (maximaal ${PROJECT_REPRO_MAX} tekens).`,
  endDate: 'Geef een geldige datum (jjjj-mm-dd).',
  users: 'Geef de leden als lijst van gebruikers.',
  tooManyUsers: `Een project heeft maximaal ${PROJECT_MEMBERS_MAX} leden.`,
} as const;

/** What may be typed in the name field (§5): lowercase letters a-z and hyphens; everything else is dropped. */
export function filterProjectName(typed: string): string {
  return typed.toLowerCase().replace(/[^a-z-]/g, '').slice(0, PROJECT_NAME_MAX);
}

/** §5: changing the name fills in the domain as name + '.' + the school's dev domain, lowercased. */
export function domainForName(name: string, siteDomain: string): string {
  return `${name}.${siteDomain}`.toLowerCase();
}

/** §9: the description counter turns green from 39 characters on (submit still needs 40). */
export const descriptionCounterIsGreen = (length: number): boolean => length >= PROJECT_DESCRIPTION_MIN - 1;

/** Whether a domain lies under the site domain (a sub-domain of it, never the site domain itself). */
export const isInsideSiteDomain = (domain: string, siteDomain: string): boolean =>
  domain.toLowerCase().endsWith(`.${siteDomain.toLowerCase()}`) && domain.length > siteDomain.length + 1;

const optionalText = z
  .union([z.string(), z.null(), z.undefined()])
  .transform((value) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null));

const memberId = z.coerce.number({ error: PROJECT_MESSAGES.users }).int(PROJECT_MESSAGES.users).positive(PROJECT_MESSAGES.users).max(2_147_483_647, PROJECT_MESSAGES.users);

/**
 * POST/PUT /api/user/project {end_date, name, docker_id, domain, visible, users[], description, repro}.
 * `siteDomain` is the configured dev domain every project domain must lie under (the server,
 * with more than one dev server: each one's; the domain says where the project lives); undefined
 * checks only the domain's shape (the HTTP declaration, contract/src/http/project-requests.ts:
 * the server parses with its dev servers' domains). Checks that need the database (image and
 * members exist, name and domain unique) are the server's.
 */
export function projectRequestSchema(siteDomain: string | readonly string[] | undefined, gitPolicy?: RepositoryAddressPolicy) {
  const siteDomains = siteDomain === undefined ? undefined : [siteDomain].flat();
  return z.object({
    name: z
      .string({ error: PROJECT_MESSAGES.nameTooShort })
      .trim()
      .min(PROJECT_NAME_MIN, PROJECT_MESSAGES.nameTooShort)
      .max(PROJECT_NAME_MAX, PROJECT_MESSAGES.nameTooLong)
      .regex(PROJECT_NAME_PATTERN, PROJECT_MESSAGES.nameShape),
    domain: z
      .string({ error: PROJECT_MESSAGES.domainTooShort })
      .trim()
      .toLowerCase()
      .min(PROJECT_DOMAIN_MIN, PROJECT_MESSAGES.domainTooShort)
      .max(PROJECT_DOMAIN_MAX, PROJECT_MESSAGES.domainShape)
      .regex(PROJECT_DOMAIN_PATTERN, PROJECT_MESSAGES.domainShape)
      .refine((domain) => siteDomains === undefined || siteDomains.some((each) => isInsideSiteDomain(domain, each)), PROJECT_MESSAGES.domainOutside(siteDomains ?? [])),
    docker_id: z.coerce
      .number({ error: PROJECT_MESSAGES.imageRequired })
      .int(PROJECT_MESSAGES.imageRequired)
      .positive(PROJECT_MESSAGES.imageRequired)
      .max(2_147_483_647, PROJECT_MESSAGES.imageRequired),
    description: z
      .string({ error: PROJECT_MESSAGES.descriptionTooShort })
      .trim()
      .min(PROJECT_DESCRIPTION_MIN, PROJECT_MESSAGES.descriptionTooShort)
      .max(PROJECT_DESCRIPTION_MAX, PROJECT_MESSAGES.descriptionTooLong),
    visible: z
      .union([z.boolean(), z.enum(['1', '0', 'true', 'false']), z.literal(1), z.literal(0)], { error: PROJECT_MESSAGES.visible })
      .optional()
      .transform((value) => value === true || value === '1' || value === 'true' || value === 1),
    // Ids, or user objects as the member search returns them.
    users: z
      .array(z.union([memberId, z.object({ id: memberId }).transform((user) => user.id)]), { error: PROJECT_MESSAGES.users })
      .max(PROJECT_MEMBERS_MAX, PROJECT_MESSAGES.tooManyUsers)
      .optional()
      .transform((ids) => [...new Set(ids ?? [])]),
    // With the school's git hosts (issue 23) the address must pass the clone-address rule, whose
    // Dutch reason is the message; without them (older callers) only its shape is checked.
    repro: optionalText.superRefine((value, ctx) => {
      if (value === null) return;
      if (value.length > PROJECT_REPRO_MAX) {
        ctx.addIssue({ code: 'custom', message: PROJECT_MESSAGES.repro });
        return;
      }
      if (gitPolicy === undefined) {
        if (!GIT_URL_PATTERN.test(value)) ctx.addIssue({ code: 'custom', message: PROJECT_MESSAGES.repro });
        return;
      }
      const check = checkRepositoryAddress(value, gitPolicy);
      if (!check.ok) ctx.addIssue({ code: 'custom', message: check.message });
    }),
    // The branch git deploy takes (null: the repository's default branch; absent: unchanged).
    branch: optionalText.refine((value) => value === null || isSafeBranchName(value), BRANCH_MESSAGE).optional(),
    end_date: optionalText.refine(
      (value) => value === null || (/^\d{4}-\d{2}-\d{2}$/.test(value) && isRealDate(value)),
      PROJECT_MESSAGES.endDate,
    ),
  });
}

export type ProjectRequestInput = z.input<ReturnType<typeof projectRequestSchema>>;
export type ProjectRequestData = z.output<ReturnType<typeof projectRequestSchema>>;

function isRealDate(value: string): boolean {
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

/** Field → messages of a form that does not pass (empty when it does): the form's submit rule. */
export function projectRequestProblems(
  input: ProjectRequestInput,
  siteDomain: string | readonly string[],
  gitPolicy?: RepositoryAddressPolicy,
): Record<string, string[]> {
  const result = projectRequestSchema(siteDomain, gitPolicy).safeParse(input);
  return result.success ? {} : problemsByField(result.error);
}

/** zod issues per top-level field ('users', not 'users.0'): one alert line per message. */
export function problemsByField(error: z.ZodError): Record<string, string[]> {
  const problems: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const field = String(issue.path[0] ?? 'form');
    const messages = (problems[field] ??= []);
    if (!messages.includes(issue.message)) messages.push(issue.message);
  }
  return problems;
}
