export * from './errors';
export * from './invocation';
export * from './operations';
export * from './run-incarnation';
