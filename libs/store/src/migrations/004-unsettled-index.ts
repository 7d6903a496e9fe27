import { ensureEveryIndex } from './001-indexes';
import type { Migration } from './types';

/**
 * An entity's own pending work moved from a mark in the control database into its document
 * (`__unsettled`, beside its outbox); the worker's sweep finds it through the `unsettled` index of
 * each database. Data written before has its old marks, which the sweep still settles; this builds
 * the index, so that the sweep's scan of outboxes reads only what waits.
 */
export const unsettledIndex: Migration = {
  version: 4,
  name: 'index of unsettled outboxes',
  up: ensureEveryIndex,
};
