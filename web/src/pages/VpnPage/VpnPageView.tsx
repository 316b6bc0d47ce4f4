import { Icon } from '../../components/Icon.tsx';
import { VPN_QR_PATH, vpnDownloadHref, type VpnConfig } from '../../api/queries/vpn.ts';
import '../../styles/databases-vpn.css';

/** The install page of the VPN client (spec §2 VPN). */
export const WIREGUARD_INSTALL_URL = 'https://www.wireguard.com/install/';

export interface VpnPageViewProps {
  /** undefined while loading, null when there is no configuration yet. */
  vpn: VpnConfig | null | undefined;
  /** The configuration could not be loaded (the server's Dutch message, or a general line). */
  loadError: string | null;
  creating: boolean;
  /** Why creating failed: the server's 503/501 message, or a general line. */
  createError: string | null;
  onCreate: () => void;
}

/**
 * /vpn (spec §2 VPN): why a VPN is needed, where to get WireGuard, the create button and, once a
 * configuration exists, its download link, address and QR code.
 */
export function VpnPageView(props: VpnPageViewProps) {
  return (
    <div className="page dbvpn-page vpn-page">
      <header className="dbvpn-header">
        <h1>
          <Icon name="shield" /> VPN
        </h1>
      </header>
      <section className="card dbvpn-intro" aria-labelledby="vpn-why-heading">
        <h2 id="vpn-why-heading">Waarom een VPN?</h2>
        <p>
          De databaseserver is alleen bereikbaar binnen het netwerk van de ontwikkelserver. Wil je thuis (of ergens anders
          buiten school) bij je database, bijvoorbeeld vanuit je editor of een databaseprogramma, dan heb je een
          VPN-verbinding nodig. Daarvoor gebruiken we WireGuard.
        </p>
        <ol className="vpn-steps">
          <li>
            Installeer WireGuard op je laptop of telefoon:{' '}
            <a href={WIREGUARD_INSTALL_URL} target="_blank" rel="noreferrer">
              WireGuard installeren
            </a>
            .
          </li>
          <li>Maak hieronder je VPN-configuratie aan.</li>
          <li>
            Importeer het configuratiebestand in WireGuard (&quot;Tunnel toevoegen&quot; of &quot;Import tunnel(s) from
            file&quot;), of scan de QR-code met de WireGuard-app op je telefoon, en zet de verbinding aan.
          </li>
        </ol>
      </section>
      <VpnConfigSection {...props} />
    </div>
  );
}

function VpnConfigSection({ vpn, loadError, creating, createError, onCreate }: VpnPageViewProps) {
  if (loadError !== null && vpn === undefined) {
    return (
      <p className="card error-text" role="alert">
        {loadError}
      </p>
    );
  }
  if (vpn === undefined) {
    return (
      <p className="page-message" role="status">
        VPN-configuratie laden…
      </p>
    );
  }
  if (vpn === null) {
    return (
      <section className="card vpn-config" aria-labelledby="vpn-config-heading">
        <h2 id="vpn-config-heading">Jouw VPN-configuratie</h2>
        <p className="muted" data-testid="no-vpn">
          Je hebt nog geen VPN-configuratie.
        </p>
        {createError !== null && (
          <p className="form-error" role="alert">
            {createError}
          </p>
        )}
        <button type="button" className="button button-primary" disabled={creating} onClick={onCreate}>
          {creating ? 'Bezig met aanmaken…' : 'VPN-configuratie aanmaken'}
        </button>
      </section>
    );
  }
  return (
    <section className="card vpn-config" aria-labelledby="vpn-config-heading" data-testid="vpn-config">
      <h2 id="vpn-config-heading">Jouw VPN-configuratie</h2>
      <div className="vpn-config-body">
        <div className="vpn-config-text">
          <p>
            Je adres in de VPN: <code data-testid="vpn-address">{vpn.address}</code>
          </p>
          <p>
            <a className="button button-primary" href={vpnDownloadHref(vpn.identifier)} download>
              Download je VPN-configuratie
            </a>
          </p>
          <p className="vpn-note" role="note">
            Je kunt het bestand later altijd opnieuw downloaden. Het bevat je privésleutel: houd het voor jezelf en deel het
            met niemand.
          </p>
        </div>
        <figure className="vpn-qr">
          <img src={VPN_QR_PATH} alt="QR-code van je VPN-configuratie voor de WireGuard-app" width={220} height={220} />
          <figcaption>Scan met de WireGuard-app op je telefoon.</figcaption>
        </figure>
      </div>
    </section>
  );
}
