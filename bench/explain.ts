import { BSON, type Db, type Document } from 'mongodb';
import { summariseWinningPlan } from './plan';

/** What the engine's `explain` says about one command, reduced to the fields that matter here. */
export interface EngineExplain {
  /** FerretDB's extensions (absent on MongoDB). */
  filterPushdown?: boolean;
  sortPushdown?: boolean;
  limitPushdown?: boolean;
  /** FerretDB SQLite: the `EXPLAIN QUERY PLAN` lines of the SQL it runs. */
  sqlPlan?: string[];
  /** MongoDB: the winning plan's stages. */
  winningPlan?: string;
  /** One line for the table. */
  summary: string;
  error?: string;
}

function reduce(result: Document): EngineExplain {
  const planner = (result.queryPlanner ?? {}) as Document;
  const sqlPlan = Array.isArray(planner.Plan) ? (planner.Plan as string[]).map((line) => line.replace(/^id=\d+ parent=\d+ notused=\d+ detail=/, '')) : undefined;
  const winningPlan = summariseWinningPlan(planner.winningPlan as Document | undefined);
  const pushdown = (['filterPushdown', 'sortPushdown', 'limitPushdown'] as const).filter((k) => k in result);
  const summary = [
    ...(pushdown.length > 0 ? [pushdown.map((k) => `${k.replace('Pushdown', '')}=${result[k] ? 'pushed' : 'not pushed'}`).join(', ')] : []),
    ...(sqlPlan ? [`SQLite: ${sqlPlan.join('; ')}`] : []),
    ...(winningPlan ? [winningPlan] : []),
  ].join(' · ');
  return {
    ...(pushdown.length > 0
      ? { filterPushdown: Boolean(result.filterPushdown), sortPushdown: Boolean(result.sortPushdown), limitPushdown: Boolean(result.limitPushdown) }
      : {}),
    ...(sqlPlan ? { sqlPlan } : {}),
    ...(winningPlan ? { winningPlan } : {}),
    summary: summary || JSON.stringify(result).slice(0, 300),
  };
}

async function explain(db: Db, command: Document): Promise<EngineExplain> {
  try {
    return reduce(await db.command({ explain: command, verbosity: 'queryPlanner' }));
  } catch (error) {
    return { summary: `explain failed: ${(error as Error).message}`, error: (error as Error).message };
  }
}

/** The `find` that `EntityCollection.list` sends (same filter, sort, projection, skip, limit). */
export function explainFind(db: Db, find: { filter: Document; sort: Document; projection: Document; skip: number; limit: number }): Promise<EngineExplain> {
  return explain(db, { find: 'entity', filter: find.filter, sort: find.sort, projection: find.projection, skip: BSON.Long.fromNumber(find.skip), limit: BSON.Long.fromNumber(find.limit) });
}

/** The pipeline the driver's `countDocuments(filter)` sends. */
export function explainCount(db: Db, filter: Document): Promise<EngineExplain> {
  return explain(db, { aggregate: 'entity', pipeline: [{ $match: filter }, { $group: { _id: 1, n: { $sum: 1 } } }], cursor: {} });
}
