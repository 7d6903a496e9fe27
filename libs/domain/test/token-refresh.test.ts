import { SIGN_IN_CEILING_SECONDS, checkRefreshable } from '../src';

describe('checkRefreshable: how long refreshing may stretch one sign-in', () => {
  const now = 1_800_000_000;
  it.each([
    ['signed in just now', now, true],
    ['a day ago', now - 86_400, true],
    ['exactly at the ceiling', now - SIGN_IN_CEILING_SECONDS, true],
    ['a second past the ceiling', now - SIGN_IN_CEILING_SECONDS - 1, false],
    ['a clock 60 s ahead', now + 60, true],
    ['in the future', now + 61, false],
    ['not a time', Number.NaN, false],
  ])('%s → %s', (_name, authTime, refreshable) => {
    let refused: unknown;
    try {
      checkRefreshable(authTime, now);
    } catch (error) {
      refused = error;
    }
    if (refreshable) expect(refused).toBeUndefined();
    else expect(refused).toMatchObject({ kind: 'unauthenticated' });
  });
});
