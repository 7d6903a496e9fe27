import {
  DEFAULT_LIMITS,
  isObjectId,
  materialise,
  type Caller,
  type CompiledType,
  type Entity,
  type Materialised,
  type Properties,
  type PropertyDefinition,
  type ValueInput,
  type VerifiedCredential,
  type WriteContext,
} from '@entia/domain';
import { newId } from '@entia/store';
import { generateApiKey } from '../api-keys';
import type { EntitiesDeps } from '../deps';

/** What the domain's write rules need of a write by `caller` to an entity of a type with `definitions`, made at `now`. */
export function writeContext(
  deps: EntitiesDeps,
  caller: Required<Caller>,
  definitions: ReadonlyMap<string, PropertyDefinition>,
  isPerson: boolean,
  verified?: VerifiedCredential,
  now = new Date().toISOString(),
): WriteContext {
  return {
    ...(verified ? { verified } : {}),
    caller,
    now,
    newId,
    definitions,
    limits: { ...DEFAULT_LIMITS, maxStringLength: deps.settings.maxStringLength, maxFileSize: deps.settings.maxFileBytes },
    isPerson,
    newApiKey: generateApiKey,
  };
}

/** The type a create's values name, when it is an id at all (the write rules refuse anything else). */
export function requestedType(values: readonly ValueInput[]): string | undefined {
  const typeId = values.find((item) => item.type === '_type')?.reference;
  return typeof typeId === 'string' && isObjectId(typeId) ? typeId : undefined;
}

/** The entity a write leaves, as stored: materialised with the write's stamp (its moment and caller). */
export function materialiseWrite(entity: Entity, type: CompiledType, targets: ReadonlyMap<string, Properties>, ctx: WriteContext): Materialised {
  return materialise({ entity, type, targets, stamp: { at: ctx.now, by: ctx.caller.personId }, newId: ctx.newId });
}
