// tests/html_browser.js PAGE REPORT.json SHOT.png [TOP] - open a memphis-report --html page
// in Debian's chromium, headless, offline, with puppeteer-core (NODE_PATH: where make
// check-deps installed it), and print one line per check, "ok DESC" or "not ok DESC", for
// tests/report/t_html.sh to number:
//   no console error, no page error, no request but the page itself;
//   the header's and tables' numbers equal REPORT.json's (what --json printed);
//   every view of the top TOP (default 10) variables rendered, each after a click on the
//   variable: SVG shapes drawn, one cell per non-zero count of the pattern members;
//   a full-page screenshot in SHOT.png whose pixels are not blank (their variance);
//   with EXPECT_TEXT="A|B": the page's text holds A and B; SHOT_VAR=NAME: the screenshot shows
//   that variable's views.
'use strict';
const fs = require('fs');
const path = require('path');
const puppeteer = require('puppeteer-core');

const [pagePath, reportPath, shotPath, topArg] = process.argv.slice(2);
const report = JSON.parse(fs.readFileSync(reportPath, 'utf8'));
const top = Number(topArg || 10);
// a file URL as the browser spells it (a space in the path is %20: run.sh's 'asan: ...' dirs)
const url = require('url').pathToFileURL(path.resolve(pagePath)).href;
let failed = 0;
function ok(cond, desc) {
	if (!cond) failed++;
	console.log((cond ? 'ok ' : 'not ok ') + desc);
}

async function variance(browser, png) {
	// in a blank page of its own: the report page's policy allows no such image
	const p = await browser.newPage();
	const v = await p.evaluate(async (b64) => {
		const img = new Image();
		img.src = 'data:image/png;base64,' + b64;
		await img.decode();
		const c = document.createElement('canvas');
		c.width = img.width; c.height = img.height;
		const g = c.getContext('2d');
		g.drawImage(img, 0, 0);
		const d = g.getImageData(0, 0, c.width, c.height).data;
		let n = 0, s = 0, s2 = 0;
		for (let i = 0; i < d.length; i += 4) {
			const y = 0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2];
			n++; s += y; s2 += y * y;
		}
		return { w: c.width, h: c.height, variance: s2 / n - (s / n) * (s / n) };
	}, png.toString('base64'));
	await p.close();
	return v;
}

// The header, node-share and per-node tables against the JSON.
async function checkOverview(page) {
	const dom = await page.evaluate(() => {
		const facts = {};
		document.querySelectorAll('#run-facts dd[data-key]').forEach((dd) => {
			facts[dd.dataset.key] = dd.textContent;
		});
		const read = (sel) => [...document.querySelectorAll(sel)].map((t) => ({
			node: Number(t.dataset.node), total: Number(t.dataset.total),
			rows: [...t.querySelectorAll('tbody tr')].map((tr) =>
				[...tr.querySelectorAll('td')].map((td) => ({ v: td.dataset.value, t: td.textContent })))
		}));
		const tables = read('.node-table:not(.far)'), farTables = read('.node-table.far');
		const share = [...document.querySelectorAll('table.node-share tbody tr')].map((tr) =>
			[...tr.querySelectorAll('td')].map((td) => Number(td.textContent.replace(/,/g, ''))));
		const regions = document.querySelectorAll('table.regions tbody tr').length;
		const regionBars = document.querySelectorAll('#region-chart svg rect.region').length;
		const shareBars = document.querySelectorAll('#node-share svg rect.bar').length;
		return { facts, tables, farTables, share, regions, regionBars, shareBars };
	});
	const num = (s) => (s === '?' ? null : Number(String(s).replace(/,/g, '')));
	const get = (k) => k.split('.').reduce((o, p) => (o ? o[p] : undefined), report);
	const keys = ['samples.total', 'samples.attributed', 'samples.remote', 'samples.local',
		'samples.lost', 'samples.throttled', 'samples.dropped', 'nodes'];
	const badFacts = keys.filter((k) => num(dom.facts[k]) !== (get(k) === undefined ? null : get(k)));
	ok(badFacts.length === 0, 'header numbers equal the JSON report\'s (' + keys.length +
		' numbers' + (badFacts.length ? '; differ: ' + badFacts.map((k) => k + ' ' +
		dom.facts[k] + ' vs ' + get(k)).join(', ') : '') + ')');
	const jt = report.tables || [];
	let bad = [];
	// the DOM's tables dt against the JSON's jt, named what
	const sameTables = (dt, jt, what) => {
		if (dt.length !== jt.length) bad.push(dt.length + ' ' + what + ', JSON ' + jt.length);
		jt.forEach((t, i) => {
			const d = dt[i];
			if (!d) return;
			if (d.node !== t.node || d.total !== t.total) bad.push(what + ' ' + i + ' node/total');
			if (d.rows.length !== t.entries.length) bad.push(what + ' ' + i + ' rows ' + d.rows.length);
			t.entries.forEach((e, k) => {
				const r = d.rows[k];
				// what the user reads (the text) and what the sort uses (data-value)
				if (!r || num(r[0].t) !== e.rank || r[1].t !== e.name || num(r[3].t) !== e.count ||
				    Number(r[0].v) !== e.rank || r[1].v !== e.name || Number(r[3].v) !== e.count)
					bad.push(what + ' ' + i + ' row ' + k);
			});
		});
	};
	sameTables(dom.tables, jt, 'tables');
	ok(bad.length === 0, 'per-node tables equal the JSON report\'s (' + jt.length + ' tables, ' +
		jt.reduce((n, t) => n + t.entries.length, 0) + ' rows' +
		(bad.length ? '; ' + bad.slice(0, 5).join(', ') : '') + ')');
	// a run with nodes without CPUs: their pages' samples are far-tier, in tables of their own
	const far = new Set(((report.run || {}).nodes || []).filter((n) => n.cpus === 0).map((n) => n.node));
	if (far.size || report.far_tables) {
		bad = [];
		sameTables(dom.farTables, report.far_tables || [], 'far tables');
		ok(bad.length === 0 && far.size > 0 && report.far_tables, 'far-tier tables equal the ' +
			'JSON report\'s far_tables (' + (report.far_tables || []).length + ' tables' +
			(bad.length ? '; ' + bad.slice(0, 5).join(', ') : '') + ')');
	}
	bad = [];
	let cpuNodes = 0;
	for (let c = 0; c < report.nodes; c++) {
		let remote = 0, farN = 0, known = 0;
		if (far.has(c)) continue;
		(report.variables || []).forEach((v) => {
			for (let p = 0; p < report.nodes; p++) {
				known += v.matrix.counts[c][p];
				if (far.has(p)) farN += v.matrix.counts[c][p];
				else if (p !== c) remote += v.matrix.counts[c][p];
			}
		});
		const r = dom.share[cpuNodes++];
		if (!r || Number(r[1]) !== remote || Number(r[2]) !== known ||
		    (far.size && Number(r[4]) !== farN))
			bad.push('node ' + c);
	}
	ok(bad.length === 0 && dom.shareBars === cpuNodes && dom.share.length === cpuNodes,
		'remote share per node: ' + dom.shareBars + ' bars, numbers equal the matrices\' sums' +
		(far.size ? ' (far tier apart)' : '') + (bad.length ? '; ' + bad : ''));
	// sortable: a click on "samples" in the first table of 2 rows or more sorts it
	// ascending, a second descending (ties keep no order: only the counts are compared)
	const ti = jt.findIndex((t) => t.entries.length > 1);
	if (ti >= 0) {
		const order = await page.evaluate((k) => {
			const t = document.querySelectorAll('.node-table table')[k];
			const th = t.querySelectorAll('thead th')[3];
			const counts = () => [...t.querySelectorAll('tbody tr')].map((tr) =>
				Number(tr.querySelectorAll('td')[3].dataset.value));
			th.click();
			const up = counts();
			th.click();
			return { up, down: counts() };
		}, ti);
		const counts = jt[ti].entries.map((e) => e.count);
		const asc = [...counts].sort((a, b) => a - b), desc = [...asc].reverse();
		ok(JSON.stringify(order.up) === JSON.stringify(asc) &&
			JSON.stringify(order.down) === JSON.stringify(desc),
			'a click on "samples" sorts the table up, a second down (' + order.up.join(',') + ')');
	}
	const nreg = (report.regions || []).length;
	ok(dom.regions === nreg && dom.regionBars === nreg, 'regions over time: ' + dom.regionBars +
		' bars and ' + dom.regions + ' rows for ' + nreg + ' regions');
}

// One variable's views after a click on its button.
async function checkVariable(page, v, i) {
	await page.evaluate((k) => document.querySelectorAll('nav#var-list button')[k].click(), i);
	const d = await page.evaluate(() => {
		const q = (s) => document.querySelectorAll('#variable ' + s).length;
		return {
			name: document.querySelector('#variable').dataset.var,
			matrix: q('[data-view=matrix] svg rect.cell'),
			pages: q('[data-view=pages] svg rect.bar'),
			threads: q('[data-view=threads] svg rect.cell'),
			strips: q('[data-view=threads] svg rect.strip'),
			lo: Number((document.querySelector('#variable [data-view=threads]') || { dataset: {} }).dataset.lo),
			hi: Number((document.querySelector('#variable [data-view=threads]') || { dataset: {} }).dataset.hi),
			time: q('[data-view=time] svg rect.cell'),
			lines: q('[data-view=lines] tr[data-line]'),
			members: q('[data-view=members] svg rect.cell'),
			memberNotes: q('[data-view=members] p.advice'),
			missing: q('.missing'),
			advice: (document.querySelector('#variable .advice .action') || {}).textContent || null
		};
	});
	const n = v.matrix.counts.length, p = v.pattern, bad = [];
	if (d.name !== v.name) bad.push('selected ' + d.name);
	if (d.matrix !== n * n) bad.push('matrix ' + d.matrix + ' cells');
	if (d.pages < 1) bad.push('no page bars');
	if (p) {
		// the views show the blocks with samples: every non-zero count, a strip cell each
		const nz = p.thread_blocks.reduce((s, r) => s + r.filter((k) => k).length, 0);
		let lo = p.blocks, hi = -1;
		p.thread_blocks.forEach((r) => r.forEach((k, b) => { if (k) { lo = Math.min(lo, b); hi = Math.max(hi, b); } }));
		p.time.cells.forEach((c) => { lo = Math.min(lo, c[1]); hi = Math.max(hi, c[1]); });
		if (nz && (d.lo !== lo || d.hi !== hi)) bad.push('blocks shown ' + d.lo + '..' + d.hi + ', sampled ' + lo + '..' + hi);
		if (d.threads !== nz || (nz && d.strips !== 2 * (d.hi - d.lo + 1)))
			bad.push('threads x blocks ' + d.threads + ' cells of ' + nz + ', ' + d.strips + ' strip cells');
		if (d.time !== p.time.cells.length) bad.push('time map ' + d.time + ' of ' + p.time.cells.length);
		if (nz === 0) bad.push('pattern without samples');
	} else if (d.missing < 2) {
		bad.push('no pattern, and the views do not say so');
	}
	if (v.advice && d.advice !== v.advice.action) bad.push('advice ' + d.advice);
	if (d.lines < 1) bad.push('no source line');
	// --by member: a member x node cell each, a line per split and shared line; none without
	const ms = v.members && v.members.list ? v.members : null;
	if (d.members !== (ms ? ms.list.length * ms.list[0].counts.length : 0))
		bad.push('member x node ' + d.members + ' cells');
	if (ms && d.memberNotes !== (ms.split || []).length + (ms.shared_lines || []).length)
		bad.push('member notes ' + d.memberNotes);
	ok(bad.length === 0, 'variable ' + (i + 1) + ' "' + v.name + '": views rendered (matrix ' +
		d.matrix + ', page bars ' + d.pages + ', thread x block cells ' + d.threads +
		', time cells ' + d.time + ', lines ' + d.lines + (p ? '' : ', no pattern data') +
		(ms ? ', member x node cells ' + d.members : '') +
		(bad.length ? '; ' + bad.join(', ') : '') + ')');
}

(async () => {
	const browser = await puppeteer.launch({
		executablePath: process.env.MEMPHIS_CHROMIUM || '/usr/bin/chromium',
		headless: true,
		args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-extensions',
			'--proxy-server=127.0.0.1:9', '--proxy-bypass-list=<-loopback>'],
	});
	try {
		const page = await browser.newPage();
		await page.setOfflineMode(true);
		await page.setViewport({ width: 1280, height: 900 });
		const errors = [], requests = [];
		page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
		page.on('pageerror', (e) => errors.push(String(e)));
		await page.setRequestInterception(true);
		page.on('request', (r) => {
			if (r.url() !== url) requests.push(r.url());
			if (r.url() === url) r.continue(); else r.abort();
		});
		await page.goto(url, { waitUntil: 'load' });
		const shown = (report.variables || []).filter((v) => v.shown).slice(0, top);
		await checkOverview(page);
		for (let i = 0; i < shown.length; i++)
			await checkVariable(page, shown[i], i);
		// the screenshot shows the first variable, or SHOT_VAR's views (docs/html.png: a)
		const at = Math.max(0, shown.findIndex((v) => v.name === process.env.SHOT_VAR));
		if (shown.length)
			await page.evaluate((k) => document.querySelectorAll('nav#var-list button')[k].click(), at);
		const png = await page.screenshot({ path: shotPath, fullPage: true });
		const px = await variance(browser, png);
		ok(px.variance > 100, 'screenshot ' + shotPath + ' (' + px.w + 'x' + px.h +
			') is not blank: pixel variance ' + px.variance.toFixed(0));
		ok(errors.length === 0, 'no console error (' + errors.length + ')' +
			(errors.length ? ': ' + errors.slice(0, 3).join(' | ') : ''));
		if (process.env.EXPECT_TEXT) {
			const text = await page.evaluate(() => document.body.innerText);
			process.env.EXPECT_TEXT.split('|').forEach((t) =>
				ok(text.includes(t), 'the page says "' + t + '"'));
		}
		ok(requests.length === 0, 'no request but the page itself (' + requests.length + ')' +
			(requests.length ? ': ' + requests.slice(0, 3).join(' ') : ''));
	} finally {
		await browser.close();
	}
	process.exit(failed ? 1 : 0);
})().catch((e) => {
	console.log('not ok the browser run: ' + (e && e.stack || e));
	process.exit(1);
});
