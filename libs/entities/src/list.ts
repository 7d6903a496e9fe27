import {
  MAX_GROUPS,
  callerTags,
  checkQueryTypes,
  encodeCursor,
  groupRows,
  invalid,
  labelOf,
  presentEntity,
  unsearchableWarning,
  type GroupKey,
  type ListQuery,
} from '@entia/domain';
import { SORT_INDEX_CAP, queryFailure } from '@entia/store';
import { schemaOf } from './definitions';
import type { Tenant } from './tenant';

/** A list query that ran out of its time: the service is not broken, the query too broad (503). */
export class QueryTooSlow extends Error {
  override readonly name = 'QueryTooSlow';

  constructor() {
    super('The query ran out of time; narrow it down with more filters.');
  }
}

export interface EntityList {
  entities: Record<string, unknown>[];
  /** Every match; absent with `count=none`. */
  count?: number;
  limit: number;
  skip: number;
  /** The cursor of the page's end when more matches follow (`after=<next>` reads them). */
  next?: string;
  /** What the caller should know of the answer: `q` on types with no searchable property; a sort no index serves. */
  warnings?: string[];
}

/** The sort as `sort=` writes it (`-title.string,name.string`). */
const sortText = (sort: ListQuery['sort']) => sort.map((key) => `${key.direction === -1 ? '-' : ''}${key.property}.${key.field}`).join(',');

/** A sort the database has no index for and gets none: said, since such a list slows with the database's size. */
const unindexedSortWarning = (sort: ListQuery['sort']) =>
  `sort=${sortText(sort)} is not served by an index: this database has the most sort indexes it gets (${SORT_INDEX_CAP}), ` +
  'so a list with this sort reads and sorts all its matches in memory (slower as they grow). Narrow the filters, or ask the operator to drop sort indexes no longer used.';

/** The types a query is about: those its `_type.reference` filter names, else every type. */
function typesNamed(query: Pick<ListQuery, 'filters'>): string[] | undefined {
  const filter = query.filters.find((f) => f.property === '_type' && f.field === 'reference' && (f.op === 'eq' || f.op === 'in'));
  if (!filter) return undefined;
  return filter.op === 'in' ? filter.values.map(String) : filter.op === 'eq' ? [String(filter.value)] : undefined;
}

/**
 * A query's filters, sort and group keys against the definitions (from the schema cache) of the
 * types it names, else of every type: a property no such type defines, or a field not of its type, is 400.
 */
export async function checkAgainstSchema(deps: Parameters<typeof schemaOf>[0], tenant: Tenant, query: Pick<ListQuery, 'filters' | 'sort' | 'group'>): Promise<void> {
  // A grouped list sorts by its keys (or a grouped reference's label), which are checked as keys.
  const checked = query.group ? { filters: query.filters, sort: [], group: query.group } : query;
  if (checked.filters.length > 0 || checked.sort.length > 0 || checked.group) checkQueryTypes(checked, (await schemaOf(deps, tenant)).propertyTypes(typesNamed(query)));
}

/** More groups than a grouped list computes: a query to narrow, not a failure. */
const tooManyGroups = () =>
  invalid('The query has too many groups.', [{ parameter: 'group', message: `more than ${MAX_GROUPS} groups (or too large ones): narrow the filters, or group by fewer or coarser keys` }]);

async function listPage(tenant: Tenant, query: ListQuery): Promise<EntityList> {
  const { entities, count, next, sortNotIndexed } = await tenant.entities.list(query, callerTags(tenant.caller));
  return {
    entities: entities.map((entity) => presentEntity(entity, query.props)),
    ...(count === undefined ? {} : { count }),
    limit: query.limit,
    skip: query.skip,
    ...(next ? { next: encodeCursor(query.sort, next) } : {}),
    ...(sortNotIndexed ? { warnings: [unindexedSortWarning(query.sort)] } : {}),
  };
}

/** `q` over types none of whose properties is searchable: said, since the empty answer alone misleads. */
async function searchWarning(deps: Parameters<typeof schemaOf>[0], tenant: Tenant, query: ListQuery): Promise<string | undefined> {
  if (query.terms.length === 0) return undefined;
  const schema = await schemaOf(deps, tenant);
  const named = typesNamed(query);
  const types = (named ?? [...schema.types.keys()]).map((id) => ({ name: labelOf(schema.types.get(id)?.properties ?? {}), searchable: schema.typeOf(id).searchable }));
  return unsearchableWarning(query.terms, types, named !== undefined);
}

/** A grouped list (`group`): its rows, computed over every group of the matches the caller may read. */
async function listGroups(tenant: Tenant, query: ListQuery & { group: GroupKey[] }): Promise<EntityList> {
  const found = await tenant.entities.groups(query, callerTags(tenant.caller));
  if (!found) throw tooManyGroups();
  const { rows, count } = groupRows(found, query);
  return { entities: rows, ...(query.count === 'none' ? {} : { count }), limit: query.limit, skip: query.skip };
}

/**
 * GET /api/{db}/entity (parsed by `parseListQuery`): check against the definitions, run within the
 * caller's visibility. `count` unless the query says `count=none`; `next` when more matches follow.
 */
export async function listEntities(deps: Parameters<typeof schemaOf>[0], tenant: Tenant, query: ListQuery): Promise<EntityList> {
  await checkAgainstSchema(deps, tenant, query);
  const warning = await searchWarning(deps, tenant, query);
  try {
    const list = query.group ? await listGroups(tenant, { ...query, group: query.group }) : await listPage(tenant, query);
    return warning === undefined ? list : { ...list, warnings: [warning, ...(list.warnings ?? [])] };
  } catch (error) {
    const failure = queryFailure(error);
    if (failure === 'timeout') throw new QueryTooSlow();
    if (failure === 'invalid-pattern') {
      // The engine does not say which pattern it refused: name every regex of the query.
      const regexes = query.filters.filter((filter) => filter.op === 'regex').map((filter) => `${filter.property}.${filter.field}.regex`);
      throw invalid(
        'The database refused a regular expression.',
        regexes.map((parameter) => ({ parameter, message: 'this engine cannot run the pattern' })),
      );
    }
    throw error;
  }
}
