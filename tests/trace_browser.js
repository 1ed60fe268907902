// tests/trace_browser.js FILE SHOT.png FRAME... - open a memphis-report --format trace (or
// pprof) file in speedscope (its release build, which make check-deps installs into BUILD/npm with
// puppeteer-core; NODE_PATH: there) in Debian's chromium, headless, and print one line per
// check, "ok DESC" or "not ok DESC", for tests/report/t_export_trace.sh to number:
//   speedscope imports it (no "Something went wrong", "Unrecognized format" or page error),
//   its Sandwich view lists frames named after each FRAME (a region name);
//   a screenshot in SHOT.png (the Time Order view, 1000x600).
// A small http server on 127.0.0.1 serves speedscope and the file, under /profile/ and its
// own name (speedscope fetches #profileURL=..., and tells the format by the bytes); every other request is refused and counted. Waits are for what the
// page shows, with generous limits (a loaded 2-core machine), never fixed sleeps.
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');
const puppeteer = require('puppeteer-core');

const [tracePath, shotPath, ...frames] = process.argv.slice(2);
const served = '/profile/' + encodeURIComponent(path.basename(tracePath));
const root = path.join(process.env.NODE_PATH.split(':')[0], 'speedscope', 'dist', 'release');
const WAIT = Number(process.env.TRACE_BROWSER_WAIT_MS || 120000);
let failed = 0;
function ok(cond, desc) {
	if (!cond) failed++;
	console.log((cond ? 'ok ' : 'not ok ') + desc);
}

const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css',
	'.json': 'application/json', '.wasm': 'application/wasm', '.png': 'image/png' };
const server = http.createServer((req, res) => {
	const u = decodeURIComponent(req.url.split(/[?#]/)[0]);
	const mine = u === decodeURIComponent(served);
	const file = mine ? tracePath : path.join(root, path.normalize(u === '/' ? '/index.html' : u));
	if (!mine && !file.startsWith(root + path.sep)) {
		res.writeHead(403);
		res.end();
		return;
	}
	fs.readFile(file, (e, b) => {
		res.writeHead(e ? 404 : 200, { 'Content-Type': types[path.extname(file)] || 'application/octet-stream' });
		res.end(e ? '' : b);
	});
});

(async () => {
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	const origin = 'http://127.0.0.1:' + server.address().port;
	const browser = await puppeteer.launch({
		executablePath: process.env.MEMPHIS_CHROMIUM || '/usr/bin/chromium',
		headless: true,
		protocolTimeout: WAIT * 2,
		args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-extensions'],
	});
	try {
		const page = await browser.newPage();
		page.setDefaultTimeout(WAIT);
		await page.setViewport({ width: 1000, height: 600 });
		const errors = [], outside = [];
		page.on('pageerror', (e) => errors.push(String(e)));
		// speedscope tells a file it cannot import in an alert(): kept, as the page's text
		const dialogs = [];
		page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss().catch(() => {}); });
		page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
		await page.setRequestInterception(true);
		page.on('request', (r) => {
			if (r.url().startsWith(origin + '/') || r.url().startsWith('data:')) {
				r.continue();
			} else {
				outside.push(r.url());
				r.abort();
			}
		});
		await page.goto(origin + '/index.html#profileURL=' + encodeURIComponent(origin + served),
			{ waitUntil: 'load', timeout: WAIT });
		// imported: the toolbar's view tabs (shown with a profile only), or an error message
		const bad = /Something went wrong|Unrecognized format|Failed to load|Error/;
		await page.waitForFunction((re) => {
			const t = document.body.innerText;
			return new RegExp(re).test(t) || t.includes('Sandwich');
		}, { timeout: WAIT, polling: 200 }, bad.source).catch(() => null);
		const text = dialogs.join('\n') + await page.evaluate(() => document.body.innerText);
		const m = text.match(bad);
		ok(!m, 'speedscope imports it' + (m ? ': it says "' + m[0] + '": ' +
			text.slice(0, 200) : ' (' + text.split('\n')[1] + ')').replace(/\n/g, ' '));
		if (shotPath)
			await page.screenshot({ path: shotPath });
		// the Sandwich view: a list of every frame of the profile shown (thread 0's) under
		// "Symbol Name", as text (the other views draw on a canvas); its tab clicked until the
		// list is there (the page may still be drawing the first view). speedscope names a
		// frame NAME, or NAME {ARGS as JSON} when the event has args (slices have none).
		const names = await page.waitForFunction((w) => {
			const t = document.body.innerText;
			const cells = t.slice(t.indexOf('Symbol Name')).split(/[\n\t]/).map((c) => c.trim());
			if (t.includes('Symbol Name') &&
			    w.every((f) => cells.some((c) => c === f)))
				return cells.filter((c) => c && !/^[\d.]+(ms|s|µs)/.test(c));
			const tab = [...document.querySelectorAll('div')].find((d) => d.children.length <= 1 &&
				d.textContent.length < 20 && d.textContent.trim().endsWith('Sandwich'));
			if (tab)
				tab.click();
			return false;
		}, { timeout: m ? 1 : WAIT, polling: 500 }, frames).then((h) => h.jsonValue()).catch(() => null);
		const seen = names || await page.evaluate(() => document.body.innerText.split('\n'));
		ok(names !== null, 'the Sandwich view lists the frames ' + frames.join(', ') +
			(names ? ' (' + names.length + ' rows)' : '; the page says: ' + seen.slice(0, 12).join(' | ')));
		ok(errors.length === 0, 'no page error (' + errors.length + ')' +
			(errors.length ? ': ' + errors.slice(0, 3).join(' | ') : ''));
		ok(outside.length === 0, 'no request outside 127.0.0.1 (' + outside.length + ')' +
			(outside.length ? ': ' + outside.slice(0, 3).join(' ') : ''));
	} finally {
		await browser.close();
		server.close();
	}
	process.exit(failed ? 1 : 0);
})().catch((e) => {
	console.log('not ok the browser run: ' + (e && e.stack || e));
	server.close();
	process.exit(1);
});
