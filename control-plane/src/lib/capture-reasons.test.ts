import { describe, expect, it } from 'vitest';
import { dutchCaptureReason } from './capture-reasons.ts';

describe('dutchCaptureReason', () => {
  it('translates the reasons it knows', () => {
    expect(dutchCaptureReason('net::ERR_NAME_NOT_RESOLVED at http://x.dev/')).toBe('de domeinnaam is onbekend');
    expect(dutchCaptureReason('page crashed')).toBe('het tabblad van de browser is gecrasht');
    expect(dutchCaptureReason('domain is not under the dev domain')).toBe('het domein valt niet onder het domein van de dockerserver');
  });

  it("keeps the agent's own Dutch, without the English after a colon", () => {
    expect(dutchCaptureReason('de site verbrak de verbinding (ERR_CONNECTION_RESET)')).toBe('de site verbrak de verbinding');
    expect(dutchCaptureReason('de browser kon de pagina niet laden: Protocol error (Page.navigate): Target closed')).toBe('de browser kon de pagina niet laden');
    expect(dutchCaptureReason('de site antwoordt met HTTP 500')).toBe('de site antwoordt met HTTP 500');
  });

  it('gives nothing for English it does not know, or what the outcome says already', () => {
    expect(dutchCaptureReason('something unexpected happened')).toBeNull();
    expect(dutchCaptureReason('page did not load within 15000 ms')).toBeNull();
    expect(dutchCaptureReason('')).toBeNull();
  });
});
