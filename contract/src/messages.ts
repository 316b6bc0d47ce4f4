/**
 * Dutch texts both ends show: the control plane sends them in its answers and the web app shows
 * the same words itself (its own checks before sending, fallbacks when an answer has no message).
 * The texts are exact (spec and brief); change them here only.
 */

/** The dev server's agent did not answer: the start of every such text. */
export const DOCKER_SERVER_UNREACHABLE = 'De dockerserver is op dit moment niet bereikbaar.';

/** The one message of every call the agent did not answer (brief: exact text); the web app's fallback for a 503 without one. */
export const AGENT_UNREACHABLE_MESSAGE = `${DOCKER_SERVER_UNREACHABLE} Probeer het zo opnieuw.`;

/** An SSH key without a name. */
export const SSH_KEY_NAME_REQUIRED = 'Geef de key een naam.';

/** An uploaded course file of zero bytes. */
export const EMPTY_FILE_MESSAGE = 'Het bestand is leeg.';

/** Spec §5/§8 alert texts of the teachers' bulk level forms. */
export const MISSING_FIELDS_MESSAGE = 'Niet alle velden zijn ingevuld';
export const NO_STUDENTS_MESSAGE = 'Je hebt geen studenten geselecteerd';

/** The cohort of users without a group, and of sites whose first member has none (spec §3). */
export const UNGROUPED_COHORT = 'Niet ingedeeld';
