import config from '../../../../config/useful-links.json';

/** One row of a useful-links table. */
export interface UsefulLink {
  key: string;
  label: string;
  description: string;
  url: string;
}

export interface UsefulLinks {
  /** The school's own services (git, programmeerhulp, scrumboard, rooster, ...). */
  internal: UsefulLink[];
  /** Learning material: a tutorial site per language and the PHP framework's documentation. */
  learning: UsefulLink[];
}

function isLink(value: unknown): value is UsefulLink {
  if (typeof value !== 'object' || value === null) return false;
  const link = value as Record<string, unknown>;
  return (
    typeof link.key === 'string' &&
    typeof link.label === 'string' &&
    typeof link.description === 'string' &&
    typeof link.url === 'string' &&
    /^https?:\/\//.test(link.url)
  );
}

/**
 * Reads the links from the school's config file (config/useful-links.json at the repository
 * root, built into the web app). Entries that are not well-formed http(s) links are left out.
 */
export function readUsefulLinks(raw: unknown): UsefulLinks {
  const source = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const list = (value: unknown): UsefulLink[] => (Array.isArray(value) ? value.filter(isLink) : []);
  return { internal: list(source.internal), learning: list(source.learning) };
}

export const usefulLinks: UsefulLinks = readUsefulLinks(config);
