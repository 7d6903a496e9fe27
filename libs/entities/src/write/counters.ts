import { conflict, numbered, planCounters, type Entity, type PropertyDefinition, type ValueInput } from '@entia/domain';
import { CounterBusy } from '@entia/store';
import type { EntitiesDeps } from '../deps';
import type { Tenant } from '../tenant';

/**
 * A write's items with the numbers of its counter values allocated: one atomic
 * allocation per new counter value, keyed by the entity's type and the property. `trial` first
 * applies the write with stand-in numbers, so a write refused anyway (no right, a bad value) takes
 * no number; a number allocated for a write that fails later is not handed out again.
 */
export async function withCounterNumbers(
  deps: EntitiesDeps,
  tenant: Tenant,
  typeId: string | undefined,
  definitions: ReadonlyMap<string, PropertyDefinition>,
  items: ValueInput[],
  existing: Entity | undefined,
  trial: (items: ValueInput[]) => unknown,
): Promise<ValueInput[]> {
  const plan = planCounters(items, definitions, existing);
  // Without a type nothing is a counter (no definitions): no request can be there.
  if (plan.requests.length === 0 || typeId === undefined) return plan.items;
  trial(numbered(plan, plan.requests.map(() => 1)));
  const counters = deps.store.counters(tenant.name);
  const numbers: number[] = [];
  try {
    // One at a time: the numbers of one write come out in the order its values were sent.
    for (const request of plan.requests) {
      const floor = () => tenant.entities.highestNumber(typeId, request.property);
      numbers.push(await counters.next(`${typeId}:${request.property}`, request.step, floor));
    }
  } catch (error) {
    if (error instanceof CounterBusy) throw conflict('So many writers asked for this counter at once that no number was free; try again.', 1);
    throw error;
  }
  return numbered(plan, numbers);
}
