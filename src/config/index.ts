/**
 * The runner's configuration: `loadConfig()` reads `temporal.yaml` (or the built-in defaults)
 * and the environment once, validated by one zod schema.
 */
export {
  ConfigSchema,
  DEFAULT_PRICES,
  DEV_SERVER_LOG_LEVELS,
  findPrice,
  type Config,
  type DevServerConfig,
  type DevServerLogLevel,
  type ModelConfig,
  type ModelPrice,
  type PriceTable,
  type StoreConfig,
  type TemporalConfig,
  type TlsConfig,
  type ToolsConfig,
  type WorkerConfig,
  type WorkspaceConfig,
} from './schema';
export {
  CONFIG_ENV_OVERRIDES,
  CONFIG_FILE_NAME,
  CONFIG_PATH_ENV,
  ConfigError,
  expandHome,
  loadConfig,
  resolveConfigPath,
  type ConfigIssue,
  type LoadConfigOptions,
} from './load';
