import { describe, expect, it } from 'vitest';
import { autoStopText, dutchDockerStatus, dutchDuration } from './docker-card-texts.ts';

describe('dutchDockerStatus', () => {
  it("words Docker's Status line in Dutch", () => {
    expect(dutchDockerStatus('Up Less than a second')).toBe('Draait al minder dan een seconde');
    expect(dutchDockerStatus('Up 3 minutes')).toBe('Draait al 3 minuten');
    expect(dutchDockerStatus('Up About an hour (healthy)')).toBe('Draait al ongeveer een uur, gezond');
    expect(dutchDockerStatus('Up 2 days (Paused)')).toBe('Gepauzeerd (draait al 2 dagen)');
    expect(dutchDockerStatus('Exited (143) 2 hours ago')).toBe('Gestopt 2 uur geleden (exitcode 143)');
    expect(dutchDockerStatus('Restarting (1) 5 seconds ago')).toBe('Start opnieuw (exitcode 1, 5 seconden geleden)');
    expect(dutchDockerStatus('Created')).toBe('Aangemaakt, nog niet gestart');
    expect(dutchDockerStatus('Up for a while in a new format')).toBe('Draait al een tijdje');
  });

  it("leaves the server's own Dutch alone", () => {
    expect(dutchDockerStatus('De container is nog niet aangemaakt.')).toBe('De container is nog niet aangemaakt.');
  });
});

describe('idle auto-stop texts', () => {
  it('names the idle time in the largest whole Dutch unit, never more than is true', () => {
    expect(dutchDuration(7 * 86_400)).toBe('7 dagen');
    expect(dutchDuration(86_400)).toBe('1 dag');
    expect(dutchDuration(36 * 3_600)).toBe('1 dag');
    expect(dutchDuration(12 * 3_600)).toBe('12 uur');
    expect(dutchDuration(3_600)).toBe('1 uur');
    expect(dutchDuration(90 * 60)).toBe('1 uur');
    expect(dutchDuration(60)).toBe('1 minuut');
    expect(dutchDuration(30 * 60)).toBe('30 minuten');
    expect(dutchDuration(1)).toBe('1 seconde');
    expect(dutchDuration(0)).toBe('0 seconden');
  });

  it('says when, why and what to do', () => {
    const text = autoStopText({ reason: 'idle', stoppedAt: '2026-03-05T10:20:00Z', lastActivityAt: null, idleAfterSeconds: 14 * 86_400 });
    expect(text).toMatch(/^Automatisch gestopt op 5 maart 2026 om \d{2}:20 omdat je site 14 dagen geen bezoekers had\. Hij is niet weg: start hem opnieuw met Starten\.$/);
  });
});
