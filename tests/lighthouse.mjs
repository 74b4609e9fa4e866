// Lighthouse's accessibility audit over the pages given on standard input (JSON: [{url, cookie}]),
// one Chromium for them all; the scores and the failed audits on standard output (JSON).
// Run by tests/test_every_page_browser.py with the directory npm installed Lighthouse in as its
// first argument (the CI cache, not the repository).
import { pathToFileURL } from "node:url";

const installed = process.argv[2];
const from = (path) => import(pathToFileURL(`${installed}/node_modules/${path}`).href);
const { default: lighthouse } = await from("lighthouse/core/index.js");
const chromeLauncher = await from("chrome-launcher/dist/index.js");

let input = "";
for await (const chunk of process.stdin) input += chunk;
const chrome = await chromeLauncher.launch({
  chromePath: process.env.CHROME_PATH,
  chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu"],
});
const results = [];
try {
  for (const { url, cookie } of JSON.parse(input)) {
    const run = await lighthouse(url, {
      port: chrome.port, onlyCategories: ["accessibility"], logLevel: "error",
      extraHeaders: cookie ? { Cookie: cookie } : undefined,
    });
    const failed = Object.values(run.lhr.audits)
      .filter((audit) => audit.score !== null && audit.score < 1 && audit.scoreDisplayMode === "binary")
      .map((audit) => audit.id);
    results.push({ url, score: run.lhr.categories.accessibility.score, failed });
  }
} finally {
  await chrome.kill();
}
process.stdout.write(JSON.stringify(results));
