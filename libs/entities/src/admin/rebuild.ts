import type { JobStatus } from '@entia/jobs';
import { rebuildStatus, scheduleRebuild } from '../aggregate';
import type { EntitiesDeps } from '../deps';
import { servedDatabase } from './database';
import { asOwner } from './owner';

/** Schedules the worker's rebuild of a database's derived data (as `POST …/rebuild` does, as its first owner); resolves to the job id. */
export async function adminScheduleRebuild(deps: EntitiesDeps, db: string): Promise<string> {
  const record = await servedDatabase(deps.store, db);
  return scheduleRebuild(deps, await asOwner(deps.store, db, record));
}

/** The state and progress of that rebuild. */
export async function adminRebuildStatus(deps: EntitiesDeps, db: string, id: string): Promise<Omit<JobStatus, 'name' | 'attempts'>> {
  const record = await servedDatabase(deps.store, db);
  return rebuildStatus(deps, await asOwner(deps.store, db, record), id);
}
