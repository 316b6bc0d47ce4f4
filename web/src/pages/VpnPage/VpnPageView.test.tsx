// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { VpnPageView, WIREGUARD_INSTALL_URL, type VpnPageViewProps } from './VpnPageView.tsx';

afterEach(cleanup);

function renderView(overrides: Partial<VpnPageViewProps> = {}) {
  const props: VpnPageViewProps = {
    vpn: null,
    loadError: null,
    creating: false,
    createError: null,
    onCreate: () => undefined,
    ...overrides,
  };
  render(<VpnPageView {...props} />);
}

const config = { identifier: '3f2b8a3e-8d3c-4b6e-9a65-0c7f1f1e2a10', address: '10.8.0.2/32', createdAt: '2026-11-24T01:00:00.000Z' };

describe('VpnPageView', () => {
  it('explains the VPN, links to the WireGuard install page and offers the create button', () => {
    const onCreate = vi.fn();
    renderView({ onCreate });
    expect(screen.getByText(/VPN-verbinding nodig/)).toBeTruthy();
    expect(screen.getByRole('link', { name: 'WireGuard installeren' }).getAttribute('href')).toBe(WIREGUARD_INSTALL_URL);
    expect(WIREGUARD_INSTALL_URL).toBe('https://www.wireguard.com/install/');
    expect(screen.queryByRole('link', { name: 'Download je VPN-configuratie' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'VPN-configuratie aanmaken' }));
    expect(onCreate).toHaveBeenCalledTimes(1);
  });

  it('shows the download link, the address, the QR code and the private key note once it exists', () => {
    renderView({ vpn: config });
    const download = screen.getByRole('link', { name: 'Download je VPN-configuratie' });
    expect(download.getAttribute('href')).toBe(`/api/vpn/${config.identifier}`);
    expect(download.hasAttribute('download')).toBe(true);
    expect(screen.getByTestId('vpn-address').textContent).toBe('10.8.0.2/32');
    expect(screen.getByRole('img', { name: /QR-code/ }).getAttribute('src')).toBe('/api/vpn/qr');
    expect(screen.getByText(/later altijd opnieuw downloaden/).textContent).toMatch(/privésleutel/);
    expect(screen.queryByRole('button', { name: 'VPN-configuratie aanmaken' })).toBeNull();
  });

  it('shows the server message when creating fails', () => {
    renderView({ createError: 'De VPN wordt door de ontwikkelserver nog niet ondersteund.' });
    expect(screen.getByRole('alert').textContent).toBe('De VPN wordt door de ontwikkelserver nog niet ondersteund.');
  });

  it('says it is loading, then nothing else', () => {
    renderView({ vpn: undefined });
    expect(screen.getByRole('status').textContent).toBe('VPN-configuratie laden…');
  });
});
