export { parseYamlDocuments, readYamlDocument, readYamlDocuments, type YamlOptions } from './yaml';
export { KubernetesValidator, KUBERNETES_SCHEMA_FILE, kustomizeBuild, manifestId, type ManifestId } from './kubernetes';
export {
  composeConfig,
  composeSchemaValidator,
  describeSchemaErrors,
  findComposeClient,
  interpolate,
  type ComposeClient,
  type ComposeConfigResult,
} from './compose';
export { contextCopies, copiesFrom, copyFrom, effective, execForm, healthcheckCommand, parseDockerfile, stageChain, type ParsedDockerfile, type Stage } from './dockerfile';
export { startCommands } from './start-path';
