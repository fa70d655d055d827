import * as z from "../platform/zod.ts";
import { unprocessable } from "./errors.ts";
import { describeSupportedTypes, resolveFileType, uploadLimit } from "./catalogs/file-types.ts";

const MEDIA_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(\s*;.*)?$/;

export const uploadFile = z.object({
  fileName: z.string().check(z.trim(), z.minLength(1), z.maxLength(255)),
  contentType: z
    .string()
    .check(z.trim(), z.minLength(1), z.maxLength(255), z.regex(MEDIA_TYPE, "must be a media type such as text/markdown")),
  fileSize: z.number().check(z.int(), z.gte(1)),
});

export type UploadFile = z.output<typeof uploadFile>;

export const uploadBatchBody = z.object({ files: z.array(uploadFile).check(z.minLength(1), z.maxLength(100)) });

/**
 * Checks what the schema cannot know statically (the accepted types and the configured size limit).
 * The whole batch is checked before any URL is signed: one bad file fails the request.
 */
export function assertUploadable(files: UploadFile[], pathPrefix: string): void {
  files.forEach((file, index) => {
    const at = pathPrefix === "" ? "" : `${pathPrefix}.${index}.`;
    const type = resolveFileType({ fileName: file.fileName, contentType: file.contentType });
    if (!type) {
      throw unprocessable(`${at}contentType: ${file.contentType} (${file.fileName}) is not an accepted file type; accepted: ${describeSupportedTypes()}`);
    }
    const maxBytes = uploadLimit(type);
    if (file.fileSize > maxBytes) {
      throw unprocessable(`${at}fileSize: must be at most ${maxBytes} bytes for ${type.label} files`);
    }
  });
}
