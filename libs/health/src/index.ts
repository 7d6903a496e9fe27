export { probe, type Check, type Readiness } from './probe';
export { DEPENDENCY_UP_METRIC, measureDependencies } from './dependency-metric';
