// Builds the inspector into agentsm_fn/inspector/static: one ES module (our code and Graphviz's WebAssembly
// build, bundled by esbuild), the page, its style, and the licences of what it ships. Deterministic: the same
// sources and package-lock.json give the same bytes (tests/inspector/test_assets.py checks the committed output).
//   node build.mjs [OUTDIR]
import {build} from "esbuild";
import {mkdirSync, readFileSync, readdirSync, writeFileSync} from "node:fs";
import {dirname, join} from "node:path";
import {fileURLToPath} from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2] ?? join(here, "..", "agentsm_fn", "inspector", "static");
mkdirSync(out, {recursive: true});

const bundled = await build({
  metafile: true,
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

// Every third-party package esbuild put into app.js (read from its metafile, not a list kept by hand), with the
// full text of each licence file the package ships.
const LICENCE_FILE = /^(licen[cs]e|copying|notice)(\.(md|txt))?$/i;
const packages = [...new Set(Object.keys(bundled.metafile.inputs)
  .map((input) => input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//)?.[1])
  .filter(Boolean))].sort();
const sections = packages.map((name) => {
  const folder = join(here, "node_modules", name);
  const about = JSON.parse(readFileSync(join(folder, "package.json"), "utf8"));
  const files = readdirSync(folder).filter((file) => LICENCE_FILE.test(file)).sort();
  if (!files.length) throw new Error(`${name} ships no licence file: name its licence text here by hand`);
  return files.map((file) => [`---- ${name} ${about.version} (${about.license}): ${file} ----`, "", readFileSync(join(folder, file), "utf8").trimEnd(), ""].join("\n")).join("\n");
});
const graphviz = JSON.parse(readFileSync(join(here, "node_modules", "@hpcc-js", "wasm-graphviz", "package.json"), "utf8")).version;
writeFileSync(join(out, "LICENSES.txt"), [
  "The run inspector's app.js bundles these third-party packages: " + packages.join(", ") + ".",
  "The rest of app.js, app.css and index.html are agentsm_fn's (MIT, the project's LICENSE).",
  "",
  "@hpcc-js/wasm-graphviz " + graphviz + " (https://github.com/hpcc-systems/hpcc-js-wasm) contains Graphviz",
  "(https://graphviz.org) compiled to WebAssembly. Graphviz is licensed under the Eclipse Public License 1.0",
  "(EPL-1.0). The npm package ships only its own licence (Apache-2.0, below), so Graphviz's EPL-1.0 text is",
  "kept in web/licenses/EPL-1.0.txt (SPDX's text) and reproduced at the end; Graphviz's source, which the EPL",
  "offers, is at https://gitlab.com/graphviz/graphviz.",
  "",
  ...sections,
  "---- Graphviz (EPL-1.0), inside @hpcc-js/wasm-graphviz " + graphviz + " ----",
  "",
  readFileSync(join(here, "licenses", "EPL-1.0.txt"), "utf8").trimEnd(),
  "",
].join("\n"));
