/** Largest push payload read (GitHub's own limit is 25 MB, but a push of a few commits is a few kB). */
export const HOOK_BODY_LIMIT = 1024 * 1024;
