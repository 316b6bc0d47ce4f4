/**
 * The agent's reason for a failed screenshot as Dutch for the admin dockers table. The agent words
 * most reasons in Dutch itself (they start with "de …"); Chromium's network codes and the agent's
 * refusals come in English. Known ones are translated here; anything else gives null, so the table
 * shows only the Dutch outcome and the English reason stays in the server log.
 */
const KNOWN: readonly [RegExp, string][] = [
  [/ERR_NAME_NOT_RESOLVED/, 'de domeinnaam is onbekend'],
  [/ERR_CONNECTION_REFUSED/, 'de site weigerde de verbinding'],
  [/ERR_(CONNECTION_RESET|CONNECTION_CLOSED|EMPTY_RESPONSE|CONNECTION_FAILED|INCOMPLETE_CHUNKED_ENCODING)/, 'de site verbrak de verbinding'],
  // The outcome's own Dutch text already says these: nothing to add.
  [/ERR_(CONNECTION_)?TIMED_OUT|did not load within|timeout \d+ ?ms exceeded/i, ''],
  [/^the site answered \d{3}$/i, ''],
  [/ERR_TOO_MANY_REDIRECTS|too many redirects/i, 'de site stuurt eindeloos door (te veel redirects)'],
  [/ERR_(CERT|SSL)_/, 'het certificaat van de site klopt niet'],
  [/ERR_(PROXY|TUNNEL)_CONNECTION_FAILED/, 'de reverse proxy is niet bereikbaar'],
  [/page crashed|target crashed/i, 'het tabblad van de browser is gecrasht'],
  [/browser (has been )?closed|browser disconnected/i, 'de browser stopte tijdens het vastleggen'],
  [/not under the dev domain|outside the dev domain/i, 'het domein valt niet onder het domein van de dockerserver'],
];

/** The agent's own Dutch wording ("de site antwoordde niet binnen 15 s"): kept, up to a colon that introduces English detail. */
const AGENT_DUTCH = /^(de|het|een) /;

export function dutchCaptureReason(reason: string): string | null {
  const text = reason.trim();
  if (text === '') return null;
  for (const [pattern, dutch] of KNOWN) {
    if (pattern.test(text)) return dutch === '' ? null : dutch;
  }
  if (AGENT_DUTCH.test(text)) {
    const colon = text.indexOf(': ');
    return (colon > 0 ? text.slice(0, colon) : text).slice(0, 300);
  }
  return null;
}
