import { writeFileSync } from "node:fs";
import { buildBundles, functionEntries } from "./bench/bundles.ts";
const built = await buildBundles(functionEntries(), null);
const out = Object.fromEntries(built.map((b) => [b.id, b.bytes]));
writeFileSync(process.argv[2]!, JSON.stringify(out, null, 1));
console.log(out);
