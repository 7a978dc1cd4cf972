export * from './invocation';
export * from './operations';
