export { isDatabaseName, isObjectId, isPropertyName } from './names';
