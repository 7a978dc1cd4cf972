/** Builds DynamoDB expressions with placeholder names and values. */
export class Expressions {
  readonly names: Record<string, string> = {};
  readonly values: Record<string, unknown> = {};
  private readonly set: string[] = [];
  private readonly remove: string[] = [];
  private readonly add: string[] = [];
  private count = 0;
  private entries = 0;

  /** A placeholder for an attribute name, or a dotted path of names. */
  name(path: string): string {
    return path
      .split('.')
      .map((part) => {
        const safe = part.replace(/[^A-Za-z0-9_]/g, '_');
        // `#_…` belongs to map-entry keys (see `entry`).
        const key = safe.startsWith('_') ? `#n${safe}` : `#${safe}`;
        this.names[key] = part;
        return key;
      })
      .join('.');
  }

  /**
   * A placeholder path to the entry `key` of the map attribute `attribute`. The key gets a
   * placeholder of its own (`#_0`, `#_1`, …; {@link name} never makes one starting `#_`), so any
   * string is a safe key, dots and `#` included.
   */
  entry(attribute: string, key: string): string {
    const placeholder = `#_${this.entries++}`;
    this.names[placeholder] = key;
    return `${this.name(attribute)}.${placeholder}`;
  }

  /** `SET attribute.key = value`, for a map entry (see {@link entry}). */
  setEntry(attribute: string, key: string, value: unknown): this {
    this.set.push(`${this.entry(attribute, key)} = ${this.value(value)}`);
    return this;
  }

  /** `REMOVE attribute.key`, for a map entry (see {@link entry}). */
  removesEntry(attribute: string, key: string): this {
    this.remove.push(this.entry(attribute, key));
    return this;
  }

  /** A placeholder for a value. */
  value(value: unknown): string {
    const key = `:v${this.count++}`;
    this.values[key] = value;
    return key;
  }

  /** `SET path = value`. */
  setTo(path: string, value: unknown): this {
    this.set.push(`${this.name(path)} = ${this.value(value)}`);
    return this;
  }

  /** `SET path = expression`, the expression built with {@link name} and {@link value} (`if_not_exists(…)`). */
  setToExpression(path: string, expression: string): this {
    this.set.push(`${this.name(path)} = ${expression}`);
    return this;
  }

  /** `REMOVE path`. */
  removes(path: string): this {
    this.remove.push(this.name(path));
    return this;
  }

  /** `ADD path value`. */
  adds(path: string, value: number): this {
    this.add.push(`${this.name(path)} ${this.value(value)}`);
    return this;
  }

  /** The update expression built so far. */
  update(): string {
    const parts: string[] = [];
    if (this.set.length > 0) parts.push(`SET ${this.set.join(', ')}`);
    if (this.remove.length > 0) parts.push(`REMOVE ${this.remove.join(', ')}`);
    if (this.add.length > 0) parts.push(`ADD ${this.add.join(', ')}`);
    return parts.join(' ');
  }

  /** Names and values, for a request (DynamoDB refuses empty maps). */
  attributes(): {
    ExpressionAttributeNames?: Record<string, string>;
    ExpressionAttributeValues?: Record<string, unknown>;
  } {
    return {
      ...(Object.keys(this.names).length > 0 ? { ExpressionAttributeNames: this.names } : {}),
      ...(Object.keys(this.values).length > 0 ? { ExpressionAttributeValues: this.values } : {}),
    };
  }
}
