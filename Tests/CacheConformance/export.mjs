// Picks the cache-tests cases that apply to a private (browser) cache, as cache-tests.fyi shows them
// for browsers: every test without `browser_skip` or `cdn_only`. Writes them, with whether each of
// Chrome, Firefox and Safari passes it in the suite's published results (results/*.json), to
// <tests.json>, and prints `selected=<count> interim=<count>` (interim: cases that need the `undici`
// package, which the client imports only for them).
//
//     node export.mjs <cache-tests checkout> <tests.json>
import fs from 'fs'
import path from 'path'
import { pathToFileURL } from 'url'

const [checkout, out] = process.argv.slice(2)
if (!checkout || !out) {
  console.error('usage: node export.mjs <cache-tests checkout> <tests.json>')
  process.exit(2)
}
const root = fs.realpathSync(checkout)
const { default: suites } = await import(pathToFileURL(path.join(root, 'tests/index.mjs')).href)
const browsers = ['chrome', 'firefox', 'safari']
const published = {}
for (const b of browsers) published[b] = JSON.parse(fs.readFileSync(path.join(root, 'results', `${b}.json`)))

const selected = []
for (const suite of suites) {
  for (const test of suite.tests) {
    if (test.browser_skip || test.cdn_only) continue
    selected.push({
      id: test.id,
      kind: test.kind || 'required',
      suite: suite.id,
      requests: test.requests,
      browsers: Object.fromEntries(browsers.map(b => [b, published[b][test.id] === true]))
    })
  }
}
fs.writeFileSync(out, JSON.stringify(selected))
const interim = selected.filter(t => t.requests.some(r => 'expected_interim_responses' in r)).length
console.log(`selected=${selected.length} interim=${interim}`)
