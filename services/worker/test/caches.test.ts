import { loadConfig } from '@entia/config';
import { CACHE_POLICIES, boundOf } from '@entia/domain';
import { Store } from '@entia/store';
import { WebhookDirectory } from '../src/webhooks/dispatcher';

/** The worker's cache, built from its row of the cache policy (the rows are tested in libs/domain/test/caches.test.ts). */
describe("the worker's caches", () => {
  const store = Store.fromSettings(loadConfig(process.env));
  afterAll(() => store.close());

  it('WebhookDirectory: the webhooks row, loading a database\'s webhooks; a dispatcher\'s cacheMs replaces the ttl', () => {
    const { max, ttl } = CACHE_POLICIES.webhooks;
    expect(boundOf(new WebhookDirectory(store)['cached'])).toEqual({ max, ttl, loads: true });
    expect(boundOf(new WebhookDirectory(store, 250)['cached'])).toEqual({ max, ttl: 250, loads: true });
  });
});
