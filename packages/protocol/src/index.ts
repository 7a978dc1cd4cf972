export * from './errors';
export * from './execution-arn';
export * from './invocation';
export * from './operations';
export * from './run-incarnation';
export * from './run-tags';
