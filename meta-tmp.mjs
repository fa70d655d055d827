import * as esbuild from "esbuild";
const r = await esbuild.build({ bundle: true, platform: "node", format: "esm", mainFields: ["module", "main"], minify: true, define: { "process.env.KIS_DEPLOYED_BUNDLE": '"true"' }, entryPoints: [process.argv[2]], outfile: "/tmp/x.mjs", write: false, metafile: true, logLevel: "error" });
const out = Object.values(r.metafile.outputs).find((o) => o.entryPoint);
console.log("total", out.bytes);
for (const [k, v] of Object.entries(out.inputs).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput).slice(0, 2000)) console.log(v.bytesInOutput, k);
