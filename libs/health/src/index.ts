export { probe, type Check, type Readiness } from './probe';
