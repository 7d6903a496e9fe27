import { CACHE_POLICIES, boundOf } from '@entia/domain';
import { SchemaCache, TargetCache } from '@entia/entities';
import { openDeps } from './stack';

/** The application layer's caches, built from their rows of the cache policy (the rows are tested in libs/domain/test/caches.test.ts). */
describe("the application layer's caches", () => {
  let deps: ReturnType<typeof openDeps>;
  beforeAll(() => {
    deps = openDeps();
  });
  afterAll(() => deps.close());

  it('SchemaCache: the schemas row, loading a schema (concurrent reads of one token share it)', () => {
    expect(boundOf(new SchemaCache(deps.store, deps.generations)['schemas'])).toEqual({ max: CACHE_POLICIES.schemas.max, loads: true });
  });

  it("TargetCache: the targets row, no load of its own (a write's missing targets are read in one `many`)", () => {
    expect(boundOf(new TargetCache(deps.generations)['cached'])).toEqual({ max: CACHE_POLICIES.targets.max, loads: false });
  });
});
