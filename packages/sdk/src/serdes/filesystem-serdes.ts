import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AnySerdes, SerdesContext } from '../types/serdes';

/** When values go to a file (AWS's). */
export enum FileSystemSerdesMode {
  /** Every value is written to a file; the checkpoint keeps a pointer. */
  ALWAYS = 'ALWAYS',
  /** Inline JSON, unless it is over ~255 KB: then a file. */
  OVERFLOW = 'OVERFLOW',
}

/** How the run and operation become directory and file names (AWS's). */
export enum FileSystemPathEncoding {
  /** Readable: `encodeURIComponent` (a Lambda durable execution ARN becomes `<function>/<execution>/<invocation>`). */
  URI = 'URI',
  /** SHA-256 hex digests: fixed length, always filesystem-safe. */
  HASH = 'HASH',
}

/** Options of {@link createFileSystemSerdes} (AWS's). */
export interface FileSystemSerdesConfig {
  /** Default `ALWAYS`. */
  storageMode?: FileSystemSerdesMode;
  /** Default `URI`. */
  pathEncoding?: FileSystemPathEncoding;
  /** A preview stored next to the file pointer (see `buildPreview`). */
  generatePreview?: (value: unknown) => Record<string, unknown> | undefined;
}

/** AWS's checkpoint limit less 1 KB for the envelope: larger inline values overflow to a file. */
const OVERFLOW_THRESHOLD_BYTES = 256 * 1024 - 1024;
const ARN_PATTERN = /^arn:[^:]*:lambda:[^:]*:[^:]*:function:([^:/]+):[^:/]+\/durable-execution\/([^/]+)\/([^/]+)$/;

const encode = (value: string, encoding: FileSystemPathEncoding): string =>
  encoding === FileSystemPathEncoding.HASH
    ? createHash('sha256').update(value).digest('hex')
    : encodeURIComponent(value);

function executionDir(basePath: string, arn: string, encoding: FileSystemPathEncoding): string {
  if (encoding === FileSystemPathEncoding.URI) {
    const match = ARN_PATTERN.exec(arn);
    if (match) return join(basePath, match[1] as string, match[2] as string, match[3] as string);
  }
  return join(basePath, encode(arn, encoding));
}

async function writeValue(
  basePath: string,
  value: unknown,
  context: SerdesContext,
  encoding: FileSystemPathEncoding,
): Promise<string> {
  const dir = executionDir(basePath, context.durableExecutionArn, encoding);
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${encode(context.entityId, encoding)}.json`);
  await writeFile(file, JSON.stringify(value), 'utf-8');
  return file;
}

/**
 * A serdes that keeps values in files under `basePath` and stores a pointer (AWS's):
 * `{"file": path, "preview"?: …}`, or `{"data": json}` inline in `OVERFLOW` mode. Use a shared,
 * durable file system (EFS, S3 Files): a replay may run elsewhere, and Lambda's `/tmp` is not
 * shared.
 */
export function createFileSystemSerdes(basePath: string, config: FileSystemSerdesConfig = {}): AnySerdes {
  const storageMode = config.storageMode ?? FileSystemSerdesMode.ALWAYS;
  const encoding = config.pathEncoding ?? FileSystemPathEncoding.URI;
  const toFile = async (value: unknown, context: SerdesContext): Promise<string> => {
    const file = await writeValue(basePath, value, context, encoding);
    const preview = config.generatePreview?.(value);
    return JSON.stringify(preview ? { file, preview } : { file });
  };
  return {
    serialize: async (value, context) => {
      if (value === undefined) return undefined;
      if (storageMode === FileSystemSerdesMode.ALWAYS) return toFile(value, context);
      const envelope = JSON.stringify({ data: JSON.stringify(value) });
      return Buffer.byteLength(envelope, 'utf-8') > OVERFLOW_THRESHOLD_BYTES ? toFile(value, context) : envelope;
    },
    deserialize: async (data) => {
      if (data === undefined) return undefined;
      const envelope = JSON.parse(data) as { file?: string; data?: string };
      if ('file' in envelope && typeof envelope.file === 'string') {
        return JSON.parse(await readFile(envelope.file, 'utf-8'));
      }
      return JSON.parse(envelope.data as string);
    },
  };
}
