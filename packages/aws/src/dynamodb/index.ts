export { ChunkMissingError, MAX_PAYLOAD_BYTES } from './chunks';
export { BY_FUNCTION_INDEX, BY_STATUS_INDEX, idempotencyPk, operationSk, runPk } from './layout';
export { DynamoDbStore, type DynamoDbStoreOptions } from './store';
export { createDurableTable, durableTableDefinition, TTL_ATTRIBUTE } from './table';
