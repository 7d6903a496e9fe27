import { DEFAULT_LIMITS, type Caller, type PropertyDefinition, type WriteContext } from '@entia/domain';
import { newId } from '@entia/store';
import { generateApiKey } from '../api-keys';
import type { EntitiesDeps } from '../deps';

/** What the domain's write rules need of a write by `caller` to an entity of a type with `definitions`, made at `now`. */
export function writeContext(
  deps: EntitiesDeps,
  caller: Required<Caller>,
  definitions: ReadonlyMap<string, PropertyDefinition>,
  isPerson: boolean,
  now = new Date().toISOString(),
): WriteContext {
  return {
    caller,
    now,
    newId,
    definitions,
    limits: { ...DEFAULT_LIMITS, maxStringLength: deps.settings.maxStringLength, maxFileSize: deps.settings.maxFileBytes },
    isPerson,
    newApiKey: generateApiKey,
  };
}
