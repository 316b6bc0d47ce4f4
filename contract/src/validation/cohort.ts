/**
 * A cohort (Groepen, e.g. SD24): 2 to 20 letters, digits or hyphens, stored in capitals (the SD
 * rule of spec §6 is case-sensitive). The admin's group form and the identity provider's group
 * mapping file (OIDC_GROUPS_MAPPING_FILE) check the same rule.
 */
export const COHORT_PATTERN = /^[A-Za-z0-9-]{2,20}$/;
