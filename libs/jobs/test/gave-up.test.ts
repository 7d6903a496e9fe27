import { UnrecoverableError } from 'bullmq';
import { gaveUp } from '../src/gave-up';

describe('gaveUp: whether a failed attempt was the last', () => {
  const failure = new Error('boom');
  it.each([
    ['the first of five attempts', 1, 5, failure, false],
    ['the fourth of five', 4, 5, failure, false],
    ['the fifth of five', 5, 5, failure, true],
    ['past the attempts (a stalled job counted again)', 6, 5, failure, true],
    ['the only attempt of a job given none', 1, undefined, failure, true],
    ['an unrecoverable failure on the first of five', 1, 5, new UnrecoverableError('refused'), true],
  ])('%s', (_name, attemptsMade, attempts, error, expected) => {
    expect(gaveUp({ attemptsMade, opts: attempts === undefined ? {} : { attempts } }, error)).toBe(expected);
  });
});
