import { boundedCache, type BoundedCache, type Entity } from '@entia/domain';
import { isRedisUnavailable, type Generations } from '@entia/jobs';
import type { EntityCollection } from '@entia/store';

/**
 * The entities writes read to check and label their references: cached per process under each
 * entity's generation token, which every write of it (the API's and the worker's) replaces before
 * and after its commit. So an entry is used only while its entity is unchanged — as current as a
 * read, the argument of the cached GET (docs/decisions.md) — and a reference read since it was last
 * written costs no database read. A create's caller is read past it (`readFirst` in
 * checks.ts).
 *
 * The token is read before the entity: an entity read after a write replaced the token is kept
 * under the old, dead token. A missing token (expired, evicted) is claimed first, and nothing is
 * kept when a write set one meanwhile. Without Redis, every entity is read from the database.
 *
 * Per process it keeps what writes reference most (`targets` bound); the rest are read again. It
 * has no `fetchMethod`: a write's missing targets are read together, in one `many`, which a load
 * per key would split into one read each.
 */
export class TargetCache {
  private readonly cached: BoundedCache<string, { token: string; entity: Entity }>;

  constructor(
    private readonly generations: Pick<Generations, 'keyOf' | 'claim' | 'tokens'>,
    max?: number,
  ) {
    this.cached = boundedCache('targets', { max });
  }

  /** The entities of `db` with these ids that exist (deleted ones left out), from here or from `entities`. */
  async many(db: string, entities: Pick<EntityCollection, 'many'>, ids: readonly string[]): Promise<Map<string, Entity>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const tokens = await this.generations.tokens(db, unique).catch((error: unknown) => {
      if (isRedisUnavailable(error)) return undefined;
      throw error;
    });
    if (tokens === undefined) return entities.many(unique);
    const found = new Map<string, Entity>();
    const missing: { id: string; token: string | null }[] = [];
    unique.forEach((id, i) => {
      const key = this.keyOf(db, id);
      const hit = this.cached.get(key);
      // `get` made it the most recently used.
      if (hit && tokens[i] !== null && hit.token === tokens[i]) found.set(id, hit.entity);
      else missing.push({ id, token: tokens[i] ?? null });
    });
    if (missing.length === 0) return found;
    const claimed = await Promise.all(missing.map(({ id, token }) => (token !== null ? token : this.claim(db, id))));
    const loaded = await entities.many(missing.map(({ id }) => id));
    missing.forEach(({ id }, i) => {
      const entity = loaded.get(id);
      if (!entity) return;
      found.set(id, entity);
      const token = claimed[i];
      if (token !== undefined) this.cached.set(this.keyOf(db, id), { token, entity });
    });
    return found;
  }

  private keyOf(db: string, id: string): string {
    return `${db}/${id}`;
  }

  private claim(db: string, id: string): Promise<string | undefined> {
    return this.generations.claim(this.generations.keyOf(db, id)).catch(() => undefined);
  }
}
