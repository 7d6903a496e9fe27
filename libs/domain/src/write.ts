import { newProperties, type Entity, type Properties } from './entity';
import { invalid, forbidden, type FieldError } from './errors';
import type { PropertyDefinition } from './definitions/definition';
import { definitionOf } from './definitions/lookup';
import { credentialProblem, isCredentialProperty, isOwnCredential, newCredential, type CredentialWrite, type NewCredential } from './credentials';
import { PERSON_LIST_PROPERTIES, holdersOf, isPersonList, hasRight } from './rights';
import { checkValue, type ValueLimits } from './values/rules';
import type { Value } from './values/types';
import type { ValueInput } from './value-input';

/** Why an inherited right cannot be changed where it shows. */
export const INHERITED = 'this right is inherited from a _parent: change it there, or set _inheritrights to false';

export type { ValueInput } from './value-input';

export interface WriteContext extends CredentialWrite {
  /** User property definitions of the entity's type, by name. */
  definitions: ReadonlyMap<string, PropertyDefinition>;
  limits: ValueLimits;
  /**
   * The caller is the person being created, registering themselves (a sign-in the database lets
   * register): they read their entity but do not own it; the owners it is given do.
   */
  registering?: boolean;
}

/** A reference value to resolve against its target before the write is stored. */
export interface ReferenceCheck {
  pointer: string;
  property: string;
  id: string;
}

export interface WriteResult {
  properties: Properties;
  /** The values created or overwritten, as the response shows them (a new API key in plain text, once). */
  written: Value[];
  /** Values this write replaced or removed (their files, index entries and keys go too). */
  removed: Value[];
  references: ReferenceCheck[];
  /** Credentials this write created, to index. */
  credentials: NewCredential[];
}

/** The person list other than `type` that holds value `id`, when `type` is one too (a right moved to another level, or denied). */
function otherRightHolding(properties: Properties, type: string, id: string): string | undefined {
  if (!isPersonList(type)) return undefined;
  return PERSON_LIST_PROPERTIES.find((list) => list !== type && (properties[list] ?? []).some((v) => v._id === id));
}

const clone = (properties: Properties): Properties =>
  newProperties(Object.entries(properties).map(([name, values]) => [name, [...values]]));

/**
 * Applies a client's values to an entity (SPEC §3): all or nothing. Without `_id` a value is added
 * (list) or replaces the property's value (non-list, per language); with `_id` it overwrites that
 * value. `existing` is undefined when creating (the caller then owns the new entity). Throws
 * `invalid` with every offending item, or `forbidden` when the caller lacks the right.
 */
export function applyWrite(existing: Entity | undefined, items: ValueInput[], ctx: WriteContext): WriteResult {
  const creating = existing === undefined;
  const properties = clone(existing?.properties ?? {});
  const result: WriteResult = { properties, written: [], removed: [], references: [], credentials: [] };
  const errors: FieldError[] = [];
  const replacedHere = new Set<string>();
  const overwritten = new Set<string>();
  // Without it no property but the system's is known: say that, not "unknown property" for each.
  if (creating && !items.some((item) => item.type === '_type')) throw typeMissing();

  items.forEach((item, index) => {
    const at = `/${index}`;
    const fail = (message: string, field = 'type') => errors.push({ pointer: `${at}/${field}`, message });
    const definition = definitionOf(item.type, ctx.definitions);
    if (!definition) return fail(`unknown property "${item.type}": the entity's type does not define it`);
    if (definition.readonly) return fail(`"${item.type}" is read-only`);
    if (definition.formula !== undefined) return fail(`"${item.type}" is computed by a formula and cannot be written`);
    if (item.type === '_type' && !creating) return fail('_type cannot be changed after the entity is created');
    if (!creating && !hasRight(existing.properties, ctx.caller, definition.writeRight) && !isOwnCredential(item, existing, ctx)) {
      throw forbidden(`writing "${item.type}" needs the ${definition.writeRight} right on this entity`);
    }

    if (isCredentialProperty(item.type)) {
      const problem = credentialProblem(item, existing?._id, properties, ctx);
      if (problem) return fail(problem.message, problem.field);
      const { stored, shown, subject } = newCredential(item, item.type, ctx);
      (properties[item.type] ??= []).push(stored);
      result.written.push(shown);
      result.credentials.push({ valueId: stored._id, property: item.type, subject });
      return;
    }

    const checked = checkValue(item, definition, ctx.limits, at);
    if (Array.isArray(checked)) return void errors.push(...checked);
    const data = checked;

    const value: Value = { _id: item._id ?? ctx.newId(), type: item.type, ...data, created: { at: ctx.now, by: ctx.caller.personId } };
    const values = (properties[item.type] ??= []);
    const movedFrom = item._id === undefined ? undefined : otherRightHolding(properties, item.type, item._id);
    if (movedFrom !== undefined) {
      // A right value sent under another right: the person moves to that level in one step (Entu's rights drawer).
      const from = properties[movedFrom]!;
      const position = from.findIndex((v) => v._id === item._id);
      if (from[position]!.inherited) return fail(INHERITED, '_id');
      const fromDefinition = definitionOf(movedFrom, ctx.definitions)!;
      if (!creating && !hasRight(existing.properties, ctx.caller, fromDefinition.writeRight)) {
        throw forbidden(`moving a value of "${movedFrom}" needs the ${fromDefinition.writeRight} right on this entity`);
      }
      if (overwritten.has(item._id!)) return fail(`value ${item._id} is overwritten twice`, '_id');
      overwritten.add(item._id!);
      result.removed.push(from[position]!);
      from.splice(position, 1);
      values.push(value);
    } else if (item._id !== undefined) {
      const position = values.findIndex((v) => v._id === item._id);
      if (position < 0) return fail(`value ${item._id} is not a value of "${item.type}" on this entity`, '_id');
      if (values[position]!.inherited) return fail(INHERITED, '_id');
      // Its object is stored under the value id: a new file under the old id could be served the
      // old bytes until the new upload lands, so a file is replaced by a new value instead.
      if (definition.type === 'file') return fail('a file value cannot be overwritten: add a new value (and delete this one)', '_id');
      if (overwritten.has(item._id)) return fail(`value ${item._id} is overwritten twice`, '_id');
      overwritten.add(item._id);
      if (!definition.list && values.some((v, i) => i !== position && v.language === data.language)) {
        return fail(`"${item.type}" already has a value${data.language ? ` in ${data.language}` : ''}`, '_id');
      }
      result.removed.push(values[position]!);
      values[position] = value;
    } else if (definition.list) {
      values.push(value);
    } else {
      // A non-list property holds one value (one per language): the new one replaces it.
      const slot = `${item.type}\u0000${data.language ?? ''}`;
      if (replacedHere.has(slot)) return fail(`"${item.type}" holds one value${data.language ? ` per language` : ''}: two were sent`);
      replacedHere.add(slot);
      const kept = values.filter((v) => v.language !== data.language);
      result.removed.push(...values.filter((v) => v.language === data.language));
      properties[item.type] = [...kept, value];
    }
    if (value.reference !== undefined) result.references.push({ pointer: `${at}/reference`, property: item.type, id: value.reference });
    result.written.push(value);
  });

  if (errors.length > 0) throw invalid('Some values were refused; nothing was written.', errors);
  if (creating) {
    completeNewEntity(properties, result, ctx);
    assertMandatoryGiven(properties, ctx.definitions);
  }
  // Refuse losing the last owner, not writing to an entity that has none left (its owners deleted).
  if (creating || (existing.properties._owner?.length ?? 0) > 0) assertOwned(properties);
  for (const [name, values] of Object.entries(properties)) if (values.length === 0) delete properties[name];
  return result;
}

function typeMissing() {
  return invalid('An entity needs its _type: send {"type": "_type", "reference": "<its type\'s id>"} with its values; nothing was written.', [
    { pointer: '', message: 'exactly one _type value with a reference is required' },
  ]);
}

function completeNewEntity(properties: Properties, result: WriteResult, ctx: WriteContext): void {
  if ((properties._type ?? []).length !== 1) throw typeMissing();
  const stamp = { at: ctx.now, by: ctx.caller.personId };
  const added: Value[] = [];
  if (!ctx.registering && !(properties._owner ?? []).some((v) => v.reference === ctx.caller.personId)) {
    added.push({ _id: ctx.newId(), type: '_owner', reference: ctx.caller.personId, created: stamp });
  }
  // A person reads their own entity (to see and manage their API keys), whoever created it.
  if (ctx.isPerson && ctx.newEntityId !== undefined && !(properties._viewer ?? []).some((v) => v.reference === ctx.newEntityId)) {
    added.push({ _id: ctx.newId(), type: '_viewer', reference: ctx.newEntityId, created: stamp });
  }
  added.push({ _id: ctx.newId(), type: '_created', datetime: ctx.now, reference: ctx.caller.personId, created: stamp });
  for (const value of added) (properties[value.type] ??= []).push(value);
  result.written.push(...added);
}

/**
 * Whether a property must hold a value (SPEC §5 `mandatory`). One a formula computes is given by
 * the formula, never by the client, so it asks nothing of a write.
 */
export function isMandatory(definition: PropertyDefinition): boolean {
  return definition.mandatory && definition.formula === undefined;
}

/**
 * A new entity holds every mandatory property of its type. Not retroactive: a later write that
 * leaves such a property alone is accepted even where it is missing (docs/decisions.md).
 */
function assertMandatoryGiven(properties: Properties, definitions: ReadonlyMap<string, PropertyDefinition>): void {
  const missing = [...definitions.values()].filter((definition) => isMandatory(definition) && (properties[definition.name]?.length ?? 0) === 0);
  if (missing.length === 0) return;
  throw invalid(
    'Some mandatory properties have no value; nothing was written.',
    missing.map((definition) => ({ pointer: '', message: `"${definition.name}" is mandatory` })),
  );
}

/** SPEC §6: the last `_owner` cannot be removed, nor denied. */
export function assertOwned(properties: Properties): void {
  if (holdersOf(properties, '_owner').length === 0) {
    throw invalid('The last _owner cannot be removed.', [{ pointer: '', message: 'an entity keeps at least one _owner' }]);
  }
}
