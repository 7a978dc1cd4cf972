export * from './operations';
export * from './invocation';
