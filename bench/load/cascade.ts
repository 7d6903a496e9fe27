import { ObjectId } from 'mongodb';
import { httpLoad } from './http-load';
import { api, type Bench } from './scenarios';
import type { Throughput } from './stats';

export interface CascadeResult {
  children: number;
  /** The burst of child creations, as the API answered it. */
  burst: Throughput;
  /** From the last child's acknowledgement until the parent's formulas show all children, ms. */
  settleMs: number;
  /** From the first child write until then, ms. */
  totalMs: number;
  /** How many times the worker rewrote the parent for the whole burst (coalescing). */
  parentWrites: number;
}

/**
 * One formula cascade: a parent whose `total` sums its children's amounts and `rows` counts them,
 * `children` children created in a burst at the benchmark's concurrency; then the time until the
 * parent (read straight from the database, past any cache) shows the right sum and count.
 */
export async function formulaCascade(bench: Bench, children: number): Promise<CascadeResult> {
  const define = async (name: string, properties: { name: string; type: string; formula?: string }[]) => {
    const type = (await api(bench, 'POST', '/entity', [
      { type: '_type', reference: bench.world.meta.entity },
      { type: 'name', string: name },
    ]))._id as string;
    for (const property of properties) {
      await api(bench, 'POST', '/entity', [
        { type: '_type', reference: bench.world.meta.property },
        { type: '_parent', reference: type },
        { type: 'name', string: property.name },
        { type: 'type', string: property.type },
        ...(property.formula ? [{ type: 'formula', string: property.formula }] : []),
      ]);
    }
    return type;
  };
  const invoice = await define('invoice', [
    { name: 'total', type: 'number', formula: '_child.row.amount SUM' },
    { name: 'rows', type: 'number', formula: '_child.row._id COUNT' },
  ]);
  const row = await define('row', [{ name: 'amount', type: 'number' }]);
  const parent = (await api(bench, 'POST', '/entity', [{ type: '_type', reference: invoice }]))._id as string;
  const collection = bench.store.database(bench.world.db).collection('entity');
  const version = async () => Number((await collection.findOne({ _id: new ObjectId(parent) }, { projection: { __v: 1 } }))?.__v);
  const before = await version();

  let amount = 0;
  const started = performance.now();
  const burst = await httpLoad({
    url: bench.base,
    connections: bench.connections,
    amount: children,
    headers: { authorization: `Bearer ${bench.token}`, 'content-type': 'application/json' },
    next: () => ({
      method: 'POST',
      path: `/api/${bench.world.db}/entity`,
      body: JSON.stringify([{ type: '_type', reference: row }, { type: '_parent', reference: parent }, { type: 'amount', number: ++amount }]),
    }),
    expect: [201],
  });
  const acknowledged = performance.now();
  const expected = (children * (children + 1)) / 2;
  const deadline = acknowledged + 600_000;
  for (;;) {
    const doc = await collection.findOne({ _id: new ObjectId(parent) }, { projection: { total: 1, rows: 1 } });
    if (doc?.total?.[0]?.number === expected && doc?.rows?.[0]?.number === children) break;
    if (performance.now() > deadline) throw new Error(`the parent did not settle within 10 minutes: ${JSON.stringify(doc)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const settled = performance.now();
  return {
    children,
    burst,
    settleMs: Math.round(settled - acknowledged),
    totalMs: Math.round(settled - started),
    parentWrites: (await version()) - before,
  };
}
