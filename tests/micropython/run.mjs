// Run Python on MicroPython's WebAssembly port under Node.js (tests/test_firmware_micropython.py):
//
//   node run.mjs MICROPYTHON_MJS FOLDER SCRIPT...
//
// MICROPYTHON_MJS is micropython.mjs of the npm package @micropython/micropython-webassembly-pyscript.
// FOLDER (laid out as a CIRCUITPY drive: code.py at the top, libraries in lib/) is copied into
// MicroPython's filesystem at /, and each SCRIPT is run as a top-level script, in turn: that
// port collects garbage only between them. Python's output goes to stdout; an exception ends
// the run with its traceback on stderr and exit status 1.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [micropython, folder, ...scripts] = process.argv.slice(2);
const { loadMicroPython } = await import(pathToFileURL(micropython).href);
const mp = await loadMicroPython({ stdout: (line) => console.log(line), stderr: (line) => console.error(line) });

function copy(from, to) {
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = `${to}/${entry.name}`;
    if (entry.isDirectory()) {
      mp.FS.mkdirTree(target);
      copy(source, target);
    } else {
      mp.FS.writeFile(target, fs.readFileSync(source));
    }
  }
}

copy(folder, "");
for (const script of scripts) {
  try {
    mp.runPython(script);
  } catch (error) {
    console.error(error.name === "PythonError" ? error.message : String(error));
    process.exit(1);
  }
}
