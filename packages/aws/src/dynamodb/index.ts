export { ChunkMissingError, MAX_PAYLOAD_BYTES } from './chunks';
export { MAX_DUE_RUNS } from './due-index';
export {
  BY_FUNCTION_INDEX,
  BY_STATUS_INDEX,
  DUE_INDEX,
  DUE_SHARDS,
  dueShard,
  idempotencyPk,
  LIST_INDEX,
  LIST_KEY,
  LIST_SHARDS,
  listKeyOf,
  operationSk,
  runPk,
} from './layout';
export {
  DEFAULT_OBJECT_THRESHOLD_BYTES,
  objectKey,
  type PayloadObjectStore,
  runFolder,
} from './payload-objects';
export { DynamoDbStore, type DynamoDbStoreOptions } from './store';
export { createDurableTable, type DurableTableOptions, durableTableDefinition, TTL_ATTRIBUTE } from './table';
