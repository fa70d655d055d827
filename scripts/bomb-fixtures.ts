/**
 * Writes the decompression and amplification bombs of issue 21 (test/fixtures/bombs.ts) to a
 * folder, to try by hand against a running local service (`npm run dev`): upload each and watch it
 * fail with its reason while the gateway keeps answering. Tests generate them in memory instead.
 *
 *   npx tsx scripts/bomb-fixtures.ts [folder]   (default: .dist/bombs)
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { docxBomb, epubRepeatBomb, pdfImageBomb, pdfStreamBomb, pngBomb, pptxRepeatBomb, xlsxBomb, xlsxRepeatBomb } from "../test/fixtures/bombs.ts";

const folder = process.argv[2] ?? ".dist/bombs";
mkdirSync(folder, { recursive: true });
const files: Record<string, () => Uint8Array | Promise<Uint8Array>> = {
  "sheet-200mb.xlsx": () => xlsxBomb(200),
  "document-450mb.docx": () => docxBomb(450),
  "stream-600mb.pdf": () => pdfStreamBomb(600),
  "image-16000px.pdf": () => pdfImageBomb(16000),
  "image-30000px.png": () => pngBomb(30000),
  "spine-9999.epub": () => epubRepeatBomb(9999),
  "slides-9999.pptx": () => pptxRepeatBomb(9999),
  "sheets-9999.xlsx": () => xlsxRepeatBomb(9999),
};
for (const [name, make] of Object.entries(files)) {
  const bytes = await make();
  writeFileSync(join(folder, name), bytes);
  console.log(`${join(folder, name)}  ${(bytes.length / 1024).toFixed(0)} KB`);
}
