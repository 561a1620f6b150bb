// Builds the inspector into agentsm_fn/inspector/static: one ES module (our code and Graphviz's WebAssembly
// build, bundled by esbuild), the page, its style, and the licences of what it ships. Deterministic: the same
// sources and package-lock.json give the same bytes (tests/inspector/test_assets.py checks the committed output).
//   node build.mjs [OUTDIR]
import {build} from "esbuild";
import {mkdirSync, readFileSync, writeFileSync} from "node:fs";
import {dirname, join} from "node:path";
import {fileURLToPath} from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2] ?? join(here, "..", "agentsm_fn", "inspector", "static");
mkdirSync(out, {recursive: true});

await build({
  entryPoints: [join(here, "src", "main.js")],
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  legalComments: "eof",
  charset: "utf8",
  outfile: join(out, "app.js"),
  logLevel: "warning",
});
await build({
  entryPoints: [join(here, "src", "app.css")],
  bundle: true,
  minify: true,
  charset: "utf8",
  outfile: join(out, "app.css"),
  logLevel: "warning",
});
// The page, with the whitespace between its tags collapsed.
const page = readFileSync(join(here, "src", "index.html"), "utf8");
writeFileSync(join(out, "index.html"), page.replace(/>\s+</g, "><").trim() + "\n");

const graphviz = join(here, "node_modules", "@hpcc-js", "wasm-graphviz");
const version = JSON.parse(readFileSync(join(graphviz, "package.json"), "utf8")).version;
writeFileSync(join(out, "LICENSES.txt"), [
  "The run inspector's app.js bundles @hpcc-js/wasm-graphviz " + version + " (https://github.com/hpcc-systems/hpcc-js-wasm),",
  "Graphviz (https://graphviz.org, Eclipse Public License 1.0) compiled to WebAssembly, under the licence below.",
  "The rest of app.js, app.css and index.html are agentsm_fn's (MIT).",
  "",
  "---- @hpcc-js/wasm-graphviz: LICENSE ----",
  "",
  readFileSync(join(graphviz, "LICENSE"), "utf8"),
].join("\n"));
