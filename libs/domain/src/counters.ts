import type { PropertyDefinition } from './definitions/definition';
import { definitionOf } from './definitions/lookup';
import type { Entity } from './entity';
import { invalid, type FieldError } from './errors';
import { VALUE_FIELDS } from './values/registry';
import type { ValueInput } from './write';

/** The largest step one `counter` may ask for (Entu's client asks for 1). */
export const MAX_COUNTER_STEP = 1000;

/** A new value of a counter property, waiting for its number: the item at `index` of the planned write. */
export interface CounterRequest {
  index: number;
  property: string;
  step: number;
}

const isCounter = (definition: PropertyDefinition | undefined) => definition?.type === 'counter';

/**
 * A write's items with every counter request set apart. On a counter property
 * a new value is `{type, counter: <step>}`: it waits in `requests` for the next number. An existing
 * value named by `_id`, sent back with `counter` and its own text as Entu's form does whenever the
 * field loses focus, stays what it is. Everything else is refused with the item it names: `counter`
 * on another property, a number or text of one's own, an existing value changed.
 */
export function planCounters(items: readonly ValueInput[], definitions: ReadonlyMap<string, PropertyDefinition>, existing?: Entity): { items: ValueInput[]; requests: CounterRequest[] } {
  const errors: FieldError[] = [];
  const requests: CounterRequest[] = [];
  const planned = items.map((item, index): ValueInput => {
    const counter = isCounter(definitionOf(item.type, definitions));
    const fail = (field: string, message: string) => {
      errors.push({ pointer: `/${index}/${field}`, message });
      return item;
    };
    if (!counter) return item.counter === undefined ? item : fail('counter', `"${item.type}" is not a counter property: only those take "counter"`);
    const { counter: step, string, ...rest } = item;
    const serverNumbers = `"${item.type}" is a counter: the server numbers its values; send {"type": "${item.type}", "counter": 1}`;
    const own = VALUE_FIELDS.find((field) => field !== 'string' && rest[field] !== undefined);
    if (own !== undefined) return fail(own, serverNumbers);
    if (item._id === undefined && string !== undefined) return fail('string', serverNumbers);
    if (typeof step !== 'number' || !Number.isInteger(step) || step < 1 || step > MAX_COUNTER_STEP) {
      return fail('counter', `"counter" is the step to the next number, a whole number from 1 to ${MAX_COUNTER_STEP}`);
    }
    if (item._id !== undefined) {
      const current = existing?.properties[item.type]?.find((value) => value._id === item._id);
      if (current?.number === undefined) return fail('_id', `value ${item._id} is not a value of "${item.type}" on this entity`);
      if (string !== undefined && string !== String(current.number)) return fail('string', 'a counter value does not change: delete it and ask for a new one');
      return { ...rest, number: current.number };
    }
    requests.push({ index, property: item.type, step });
    return rest;
  });
  if (errors.length > 0) throw invalid('Some values were refused; nothing was written.', errors);
  return { items: planned, requests };
}

/** The planned items with each request's allocated number (`numbers` in the order of `requests`). */
export function numbered(plan: { items: readonly ValueInput[]; requests: readonly CounterRequest[] }, numbers: readonly number[]): ValueInput[] {
  const items = [...plan.items];
  plan.requests.forEach((request, i) => {
    items[request.index] = { ...items[request.index]!, number: numbers[i]! };
  });
  return items;
}
