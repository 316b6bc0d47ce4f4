import { describe, expect, it } from 'vitest';
import { ansiSegments } from './ansiSegments.ts';

describe('ansiSegments', () => {
  it('keeps a line without escapes as one plain run', () => {
    expect(ansiSegments('GET / 200 <b>')).toEqual([{ text: 'GET / 200 <b>' }]);
  });

  it('turns colour and decoration codes into classes and drops other escapes', () => {
    expect(ansiSegments('\u001b[31mERROR\u001b[0m done \u001b[1;92mok\u001b[0m\u001b[2K\u001b[1A')).toEqual([
      { text: 'ERROR', className: 'ansi-red' },
      { text: ' done ' },
      { text: 'ok', className: 'ansi-bright-green ansi-bold' },
    ]);
    expect(ansiSegments('\u001b[44mbg\u001b[0m')).toEqual([{ text: 'bg', className: 'ansi-blue-bg' }]);
  });

  it('gives the 256-colour palette and true colour an rgb()', () => {
    expect(ansiSegments('\u001b[38;5;208mo\u001b[38;5;3my\u001b[38;2;10;20;30mt\u001b[0m')).toEqual([
      { text: 'o', color: 'rgb(255, 135, 0)' },
      { text: 'y', className: 'ansi-yellow' },
      { text: 't', color: 'rgb(10, 20, 30)' },
    ]);
  });

  it('keeps markup from the container as text', () => {
    expect(ansiSegments('\u001b[32m<img src=x onerror=alert(1)>\u001b[0m')).toEqual([{ text: '<img src=x onerror=alert(1)>', className: 'ansi-green' }]);
  });
});
