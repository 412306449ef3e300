// Runs the cases of <tests.json> (export.mjs) with the suite's own client against <base URL> (the
// proxy whose cache is NetworkLayer), without a browser cache, 25 at a time. Writes every case's
// result to <results.json> (true, or [error name, message]) and the failing ones, with their kind and
// suite, to <failures.txt>; prints how many pass beside the browsers' published results.
//
//     node run.mjs <cache-tests checkout> <tests.json> <base URL> <results.json> <failures.txt>
import fs from 'fs'
import path from 'path'
import { pathToFileURL } from 'url'

const [checkout, testsFile, baseUrl, resultsFile, failuresFile] = process.argv.slice(2)
if (!checkout || !testsFile || !baseUrl || !resultsFile || !failuresFile) {
  console.error('usage: node run.mjs <cache-tests checkout> <tests.json> <base URL> <results.json> <failures.txt>')
  process.exit(2)
}
// One module instance each: test.mjs imports the same config.mjs the base URL is set on.
const root = fs.realpathSync(checkout)
const load = file => import(pathToFileURL(path.join(root, file)).href)
const config = await load('test-engine/client/config.mjs')
const { makeTest, testResults } = await load('test-engine/client/test.mjs')
const { default: suites } = await load('tests/index.mjs')

const selected = JSON.parse(fs.readFileSync(testsFile))
const wanted = new Map(selected.map(t => [t.id, t]))
config.setBaseUrl(baseUrl)
config.setUseBrowserCache(false)
const tests = []
for (const suite of suites) for (const test of suite.tests) if (wanted.has(test.id)) tests.push(test)
for (let i = 0; i < tests.length; i += 25) await Promise.all(tests.slice(i, i + 25).map(makeTest))
fs.writeFileSync(resultsFile, JSON.stringify(testResults, null, 1))

const failures = tests.filter(t => testResults[t.id] !== true).map(t => {
  const { kind, suite } = wanted.get(t.id)
  return [suite, t.id, kind, JSON.stringify(testResults[t.id])].join('\t')
})
fs.writeFileSync(failuresFile, failures.map(line => line + '\n').join(''))

const passed = tests.filter(t => testResults[t.id] === true).length
const browser = b => tests.filter(t => wanted.get(t.id).browsers[b]).length
console.log(`NetworkLayer passes ${passed} of ${tests.length} private-cache cases; on the same cases the ` +
  `suite's published results: Firefox ${browser('firefox')}, Chrome ${browser('chrome')}, Safari ${browser('safari')}`)
