/**
 * The Linux capabilities an image option may give its containers (every container drops ALL and
 * gets back only these). The list is Docker's default set minus NET_RAW, MKNOD and SETFCAP, and
 * this is its one definition: the host agent enforces it on its side
 * (host-agent/src/drivers/docker/capabilities.ts), the control plane validates against it and the
 * admin images page shows it.
 */
export const CONTAINER_CAPABILITIES = [
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'SETGID',
  'SETUID',
  'SETPCAP',
  'NET_BIND_SERVICE',
  'SYS_CHROOT',
  'AUDIT_WRITE',
] as const;

export type ContainerCapability = (typeof CONTAINER_CAPABILITIES)[number];

/**
 * What an option gets when nothing is chosen, and what options made before capabilities
 * existed got (migration 0010): the whole allow-list, the set containers always had.
 */
export const DEFAULT_CAPABILITIES: readonly ContainerCapability[] = CONTAINER_CAPABILITIES;

/** Dutch help per capability, for the admin images page. */
export const CAPABILITY_HELP: Record<ContainerCapability, string> = {
  CHOWN: 'eigenaar van bestanden wijzigen (chown)',
  DAC_OVERRIDE: 'als root bestanden van anderen lezen en schrijven, ongeacht de bestandsrechten',
  FOWNER: 'rechten en tijden wijzigen van bestanden van een ander (chmod)',
  FSETID: 'setuid/setgid-bit behouden bij het wijzigen van bestanden',
  KILL: 'processen van andere gebruikers stoppen; nodig om SSH-sessies te kunnen beëindigen',
  SETGID: 'van groep wisselen, bijv. een webserver of SSH-login die als andere gebruiker draait',
  SETUID: 'van gebruiker wisselen, bijv. een webserver of SSH-login die als andere gebruiker draait',
  SETPCAP: 'eigen rechten doorgeven of inperken',
  NET_BIND_SERVICE: 'als niet-root luisteren op poorten onder 1024',
  SYS_CHROOT: 'chroot gebruiken (bijv. OpenSSH)',
  AUDIT_WRITE: 'naar het audit-log van de kernel schrijven (bijv. OpenSSH met PAM)',
};

export const CAPABILITY_MESSAGE = `Onbekend recht. Kies uit: ${CONTAINER_CAPABILITIES.join(', ')}.`;
