/**
 * Escapes the LIKE wildcards (% and _) and the escape character itself, so a search for '%'
 * finds only names that contain a '%'. PostgreSQL's default LIKE escape character is '\'.
 */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A case-insensitive "contains" pattern for ILIKE. */
export const containsPattern = (text: string): string => `%${escapeLike(text)}%`;

/** A case-insensitive "starts with" pattern for ILIKE. */
export const prefixPattern = (text: string): string => `${escapeLike(text)}%`;
