/** Whether a preview field is matched by name anywhere, or by its exact dot path (AWS's). */
export enum FieldMatchMode {
  /** The field name at any depth (default). */
  ANYWHERE = 'ANYWHERE',
  /** The exact dot path from the root (`user.email`). */
  PATH = 'PATH',
}

/** Which fields a preview shows by default (AWS's). */
export enum PreviewMode {
  /** Every field, then `exclude` and `mask` apply. */
  INCLUDE_ALL = 'INCLUDE_ALL',
  /** No field, then `include` and `mask` apply. */
  EXCLUDE_ALL = 'EXCLUDE_ALL',
}

/** A field a preview rule names. */
export interface PreviewField {
  name: string;
  match?: FieldMatchMode;
}

/** What {@link buildPreview} keeps (AWS's). */
export interface PreviewConfig {
  mode: PreviewMode;
  include?: PreviewField[];
  /** Never shown, even when masked. */
  exclude?: PreviewField[];
  /** Shown as `maskString`. */
  mask?: PreviewField[];
  /** Default `***`. */
  maskString?: string;
  /** Default 4096. */
  maxPreviewBytes?: number;
}

const DANGEROUS_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function matches(path: string, field: PreviewField): boolean {
  return (field.match ?? FieldMatchMode.ANYWHERE) === FieldMatchMode.PATH
    ? path === field.name
    : path.split('.').includes(field.name);
}

const matchedBy = (path: string, fields: readonly PreviewField[] | undefined): boolean =>
  fields?.some((f) => matches(path, f)) ?? false;

/**
 * A small object showing some fields of `value` (AWS's), e.g. for a checkpoint that only points
 * at a file: fields chosen by `config`, masked where asked, at most `maxPreviewBytes`.
 * Undefined when nothing is kept. Array elements' fields merge into one object.
 */
export function buildPreview(value: unknown, config: PreviewConfig): Record<string, unknown> | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const maskString = config.maskString ?? '***';
  const maxBytes = config.maxPreviewBytes ?? 4096;
  const pairs: Array<[string, unknown]> = [];
  const collect = (obj: unknown, prefix: string): void => {
    if (obj === null || typeof obj !== 'object') return;
    if (Array.isArray(obj)) {
      for (const item of obj) collect(item, prefix);
      return;
    }
    const record = obj as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (DANGEROUS_KEYS.has(key) || key.includes('.')) continue;
      const path = prefix ? `${prefix}.${key}` : key;
      const masked = matchedBy(path, config.mask);
      const excluded = matchedBy(path, config.exclude);
      const visible =
        !excluded && (masked || (config.mode === PreviewMode.INCLUDE_ALL ? true : matchedBy(path, config.include)));
      const child = record[key];
      if (!visible) {
        if (!excluded) collect(child, path);
        continue;
      }
      if (masked) pairs.push([path, maskString]);
      else if (child !== null && typeof child === 'object') collect(child, path);
      else pairs.push([path, child]);
    }
  };
  collect(value, '');
  const accepted: Array<[string, unknown]> = [];
  let size = 2;
  for (const [path, val] of pairs) {
    const entrySize = Buffer.byteLength(`"${path}":${JSON.stringify(val)},`, 'utf-8');
    if (size + entrySize > maxBytes) break;
    accepted.push([path, val]);
    size += entrySize;
  }
  if (accepted.length === 0) return undefined;
  const result: Record<string, unknown> = {};
  for (const [path, val] of accepted) {
    const parts = path.split('.');
    let node = result;
    for (const part of parts.slice(0, -1)) {
      if (typeof node[part] !== 'object' || node[part] === null) node[part] = {};
      node = node[part] as Record<string, unknown>;
    }
    node[parts[parts.length - 1] as string] = val;
  }
  return Object.keys(result).length > 0 ? result : undefined;
}
