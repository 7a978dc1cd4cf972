export type { AnySerdes, AnySerdesDeserializer, Serdes, SerdesConfig, SerdesContext } from '../types/serdes';
export { defaultSerdes, deserializeChecked, serializeChecked } from './checked';
export { createClassSerdes, createClassSerdesWithDates } from './class-serdes';
export {
  createFileSystemSerdes,
  FileSystemPathEncoding,
  type FileSystemSerdesConfig,
  FileSystemSerdesMode,
} from './filesystem-serdes';
export { buildPreview, FieldMatchMode, type PreviewConfig, type PreviewField, PreviewMode } from './preview';
