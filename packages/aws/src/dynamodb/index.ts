export { ChunkMissingError, MAX_PAYLOAD_BYTES } from './chunks';
export { MAX_DUE_RUNS } from './due-index';
export {
  BY_FUNCTION_INDEX,
  BY_STATUS_INDEX,
  DUE_INDEX,
  DUE_SHARDS,
  dueShard,
  idempotencyPk,
  operationSk,
  runPk,
} from './layout';
export { DynamoDbStore, type DynamoDbStoreOptions } from './store';
export { createDurableTable, durableTableDefinition, TTL_ATTRIBUTE } from './table';
