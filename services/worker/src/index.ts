export { startWorker, type RunningWorker } from './worker';
export { healthServer } from './health-server';
