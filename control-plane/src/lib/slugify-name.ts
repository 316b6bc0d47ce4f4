/**
 * The slug used in profile URLs (/profile/{id}/{name_slug}): lowercase ASCII, accents dropped,
 * every run of other characters one hyphen. 'Zoë de Wit' → 'zoe-de-wit'.
 */
export function slugifyName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
