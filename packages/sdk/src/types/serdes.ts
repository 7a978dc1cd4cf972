/** Context handed to a {@link Serdes} (compat with AWS's SDK). */
export interface SerdesContext {
  /** The operation whose value is (de)serialized. */
  entityId: string;
  /** The run, as `durableExecutionArn` for compatibility. */
  durableExecutionArn: string;
}

/** Turns values into stored strings and back (compat with AWS's SDK: both may be async). */
export interface Serdes<T> {
  serialize(value: T | undefined, context: SerdesContext): Promise<string | undefined> | string | undefined;
  deserialize(data: string | undefined, context: SerdesContext): Promise<T | undefined> | T | undefined;
}

/** A serdes of any value type (AWS's name). */
export type AnySerdes = Serdes<unknown>;
/** The reading half of a serdes (AWS's name). */
export type AnySerdesDeserializer = Pick<AnySerdes, 'deserialize'>;

/** Options of `context.configureSerdes` (AWS's); only the fields given change. */
export interface SerdesConfig {
  /** Used by steps, child contexts, waitForCondition, invoke and map/parallel items without a serdes. */
  defaultSerdes?: AnySerdes;
  /** Reads callback results without a serdes of their own (default: the payload string as is). */
  defaultCallbackDeserializer?: AnySerdesDeserializer;
}
