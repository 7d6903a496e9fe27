import { canRead, invalid, mayAddress, presentEntity, referencesOf, type Entity } from '@entia/domain';
import type { Tenant } from '@entia/entities';
import DataLoader from 'dataloader';

/** An entity as the API shows it: `_id` and its values by property name (`presentEntity`). */
export type Shown = Record<string, unknown> & { _id: string };

/**
 * One batch of reverse relations (the `_children` / `_referrers` fields of a whole page) reads at
 * most this many entities; a batch that reaches it is refused rather than answered short.
 */
export const RELATED_CAP = 10_000;

export type Relation = 'children' | 'referrers';

/**
 * Per request: entities by id and reverse relations, each batched into one read per tick (no N+1)
 * and each seen through the caller's rights, by the same rule as a REST read (`mayAddress` /
 * `canRead`): what the caller may not read is absent.
 */
export class Loaders {
  readonly entities: DataLoader<string, Shown | null>;
  private readonly related: DataLoader<string, Shown[]>;

  constructor(private readonly tenant: Tenant) {
    this.entities = new DataLoader(async (ids) => {
      const found = await tenant.entities.many(ids);
      return ids.map((id) => {
        const entity = found.get(id);
        return entity && mayAddress(entity, tenant.caller, false) ? (presentEntity(entity) as Shown) : null;
      });
    });
    this.related = new DataLoader((keys) => this.loadRelated(keys), { maxBatchSize: 1000 });
  }

  /** The readable entities related to `id`, optionally of type `typeId`. */
  relatedTo(relation: Relation, id: string, typeId: string | undefined): Promise<Shown[]> {
    return this.related.load(`${relation}|${typeId ?? ''}|${id}`);
  }

  private async loadRelated(keys: readonly string[]): Promise<Shown[][]> {
    const groups = new Map<string, string[]>();
    for (const key of keys) {
      const [relation, typeId, id] = key.split('|') as [Relation, string, string];
      const group = `${relation}|${typeId}`;
      groups.set(group, [...(groups.get(group) ?? []), id]);
    }
    const answers = new Map<string, Shown[]>();
    await Promise.all(
      [...groups].map(async ([group, ids]) => {
        const [relation, typeId] = group.split('|') as [Relation, string];
        const found = await this.tenant.entities.relatedMany(relation, ids, typeId === '' ? undefined : typeId, RELATED_CAP + 1);
        if (found.length > RELATED_CAP) throw invalid(`More than ${RELATED_CAP} related entities in one page: ask for fewer entities, or list them with a filter.`);
        for (const id of ids) answers.set(`${group}|${id}`, []);
        for (const entity of found.filter((entity) => canRead(entity.properties, this.tenant.caller))) {
          for (const id of relatedIds(relation, entity, ids)) answers.get(`${group}|${id}`)!.push(presentEntity(entity) as Shown);
        }
      }),
    );
    return keys.map((key) => answers.get(key) ?? []);
  }
}

/** Which of `ids` the entity is a child of (by `_parent`) or refers to (by any reference value). */
function relatedIds(relation: Relation, entity: Entity, ids: readonly string[]): string[] {
  if (relation === 'children') return referencesOf(entity.properties, '_parent').filter((id) => ids.includes(id));
  const refs = new Set(Object.values(entity.properties).flatMap((values) => values.flatMap((value) => (value.reference === undefined ? [] : [value.reference]))));
  return ids.filter((id) => refs.has(id));
}
