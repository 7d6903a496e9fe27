import { loadConfig } from '@entia/config';
import { CACHE_POLICIES, boundOf } from '@entia/domain';
import { Store } from '@entia/store';
import { KeyLiveness } from '../src/auth/authenticate';
import { TokenKeys, TokenVerifier } from '../src/auth/tokens';

/** The API's caches, built from their rows of the cache policy (the rows are tested in libs/domain/test/caches.test.ts). */
describe("the API's caches", () => {
  const store = Store.fromSettings(loadConfig(process.env));
  afterAll(() => store.close());

  it('KeyLiveness: the key-liveness row, trusted for KEY_RECHECK_MS, loading a key\'s liveness', () => {
    expect(boundOf(new KeyLiveness(store, 30_000)['seen'])).toEqual({ max: CACHE_POLICIES['key-liveness'].max, ttl: 30_000, loads: true });
  });

  it("TokenVerifier: the verified-tokens row, no ttl (each token's own expiry is checked), nothing to load", () => {
    const keys = new TokenKeys([{ kid: 'k1', secret: 's'.repeat(43) }]);
    expect(boundOf(new TokenVerifier(keys)['valid'])).toEqual({ max: CACHE_POLICIES['verified-tokens'].max, loads: false });
  });
});
