import type { TestTenant } from './tenant';

/** One write of the load and how it was answered (`'no answer'`: none within 30 s). */
export interface Outcome {
  kind: 'row' | 'tag' | 'rename';
  key: string;
  status: number | 'no answer';
  ms: number;
}

/** The entities the load writes: rows under an invoice, tags on one board, renames of a customer. */
export interface Targets {
  invoice: string;
  row: string;
  board: string;
  customer: string;
}

/**
 * A bounded write load through one API process: `writers` loops, each creating rows (a formula of
 * the invoice sums them), and every few rows adding a tag to one shared entity (concurrent writers
 * of one entity) or renaming the customer (a label the invoice shows). Runs until `stop()` holds
 * or `maxWrites` are sent, and records every answer.
 */
export async function writeLoad(base: string, t: TestTenant, targets: Targets, stop: () => boolean, writers = 4, maxWrites = 600): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let sent = 0;
  const send = async (kind: Outcome['kind'], key: string, path: string, body: object[]) => {
    const started = Date.now();
    let status: Outcome['status'];
    try {
      const res = await fetch(`${base}/api/${t.db}/${path}`, {
        method: 'POST',
        headers: { Authorization: t.owner.auth, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      await res.arrayBuffer();
      status = res.status;
    } catch {
      status = 'no answer';
    }
    outcomes.push({ kind, key, status, ms: Date.now() - started });
  };
  await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      while (!stop() && sent < maxWrites) {
        const n = sent++;
        const key = `w${writer}-${n}`;
        if (n % 5 === 3) await send('tag', key, `entity/${targets.board}`, [{ type: 'tag', string: key }]);
        else if (n % 5 === 4) await send('rename', key, `entity/${targets.customer}`, [{ type: 'name', string: key }]);
        else await send('row', key, 'entity', [{ type: '_type', reference: targets.row }, { type: '_parent', reference: targets.invoice }, { type: 'name', string: key }, { type: 'amount', number: n + 1 }]);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }),
  );
  return outcomes;
}

export const acknowledged = (outcome: Outcome) => typeof outcome.status === 'number' && outcome.status >= 200 && outcome.status < 300;
export const serverError = (outcome: Outcome) => typeof outcome.status === 'number' && outcome.status >= 500;

/** The figures a fault scenario reports. */
export function summary(name: string, outcomes: Outcome[], lost: number, settledMs: number): string {
  const byStatus = new Map<string, number>();
  for (const outcome of outcomes) byStatus.set(String(outcome.status), (byStatus.get(String(outcome.status)) ?? 0) + 1);
  const statuses = [...byStatus].sort().map(([status, count]) => `${count}×${status}`).join(' ');
  const slowest = Math.max(...outcomes.map((outcome) => outcome.ms));
  return `${name}: ${outcomes.length} writes (${statuses}); ${outcomes.filter(acknowledged).length} acknowledged, ${lost} lost, ${outcomes.filter(serverError).length} 5xx (none stored); slowest answer ${slowest} ms; derived values right ${(settledMs / 1000).toFixed(1)} s after recovery`;
}
