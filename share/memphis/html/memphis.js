/* share/memphis/html/memphis.js - draws the page from the report's JSON embedded in it
 * (#memphis-report: what `memphis-report --json` prints, docs/report-schema.md) and the
 * page-only JSON (#memphis-page: the charting library inlined, the source text). d3 (v3,
 * Debian's libjs-d3) draws scales, axes and shapes; nothing is fetched. Every view of a
 * variable is drawn for the variable the user clicks (a table row or a button). */
(function () {
	'use strict';
	/* the report and page data; a text that is no JSON (memphis-report checks the saved
	 * report it is given, RFC 8259) leaves a line on the page, never a blank page */
	function data(id) {
		try {
			var d = JSON.parse(document.getElementById(id).textContent);
			return d !== null && typeof d === 'object' && !Array.isArray(d) ? d : {};
		} catch (e) {
			d3.select('#notes').append('p').attr('class', 'note')
				.text('The report embedded in this page could not be read (' + id + ': ' +
					e.message + ').');
			return {};
		}
	}
	var R = data('memphis-report');
	var P = data('memphis-page');
	var nodes = typeof R.nodes === 'number' && R.nodes >= 1 ? R.nodes : 1;
	var num = d3.format(',');
	/* nodes and threads in palettes of their own (Dark2; category10 then 20b: 30 hues), so
	 * that a first-touch strip and a home-node strip of one colour mean different things */
	var nodeColor = d3.scale.ordinal().range(['#1b9e77', '#d95f02', '#7570b3', '#e7298a',
		'#66a61e', '#e6ab02', '#a6761d', '#666666']);
	var threadColor = d3.scale.ordinal().range(d3.scale.category10().range()
		.concat(d3.scale.category20b().range()));
	/* the pattern members come with --pattern (--html asks for them) for the program's
	 * shown variables: a saved --json report, stacks and runtimes have none */
	var MISSING = R.job ? 'No pattern data in the report of an MPI job: a pattern is one ' +
		'rank\'s threads and addresses (memphis-report JOBDIR --rank N --html).' :
		'No pattern data for this variable: run with --pattern data (memphis-report ' +
		'--html writes it for the shown variables of the program).';

	function fmt(n) { return n === null || n === undefined ? '?' : num(n); }
	function pct(x) { return isFinite(x) ? (100 * x).toFixed(1) + ' %' : '-'; }
	function nodeName(i) { return i === null || i === undefined || i >= nodes ? '?' : 'Node' + i; }
	function bytes(b) {
		if (b >= 1 << 30) return (b / (1 << 30)).toFixed(1) + ' GiB';
		if (b >= 1 << 20) return (b / (1 << 20)).toFixed(1) + ' MiB';
		if (b >= 1 << 10) return (b / (1 << 10)).toFixed(0) + ' KiB';
		return b + ' B';
	}
	function note(sel, text) { sel.append('p').attr('class', 'note').text(text); }
	/* fn() drawn, or, when the report's members are not what the view reads (a report
	 * edited by hand, of another version), a note naming the view instead of the view: the
	 * other views are drawn */
	function guard(what, fn) {
		try {
			fn();
		} catch (e) {
			note(d3.select('#notes'), what + ' could not be drawn from this report: ' + e.message);
		}
	}
	function missing(sel, text) { sel.append('p').attr('class', 'missing').text(text); }

	/* a table of rows (arrays of {v, text, num}) under sel, sorted by a click on a header */
	function table(sel, heads, rows, cls) {
		var t = sel.append('table').attr('class', cls || null);
		var th = t.append('thead').append('tr').selectAll('th').data(heads).enter()
			.append('th').text(function (d) { return d; });
		var tr = t.append('tbody').selectAll('tr').data(rows).enter().append('tr');
		tr.selectAll('td').data(function (r) { return r.cells; }).enter().append('td')
			.attr('class', function (c) { return c.num ? 'num' : null; })
			.attr('data-value', function (c) { return c.v; })
			.text(function (c) { return c.text !== undefined ? c.text : c.num ? fmt(c.v) : c.v; });
		th.on('click', function (d, i) {
			var asc = !d3.select(this).classed('sorted-asc');
			th.classed('sorted-asc', false).classed('sorted-desc', false);
			d3.select(this).classed(asc ? 'sorted-asc' : 'sorted-desc', true);
			tr.sort(function (a, b) {
				var x = a.cells[i].v, y = b.cells[i].v;
				var c = typeof x === 'number' && typeof y === 'number' ? x - y :
					String(x).localeCompare(String(y));
				return asc ? c : -c;
			});
		});
		return tr;
	}

	function svg(sel, w, h) {
		return sel.append('svg').attr('width', w).attr('height', h);
	}

	/* ---- overview: the run header, notes for unusual input, per-node shares, tables ---- */
	function header() {
		var run = R.run || {}, s = R.samples || {};
		var rw = s.runtime_wait;
		var facts = [
			['program', (run.exe || '?') + ' (pid ' + run.pid + ')'],
			['command line', run.cmdline],
			['backend', run.backend + (run.backend_why ? ' (' + run.backend_why + ')' : '')],
			['period', run.period_ns ? fmt(run.period_ns) + ' ns' :
				fmt(run.hw_period) + ' ' + (run.hw_period_unit || '')],
			['weighting', run.weighting],
			['samples', fmt(s.total), 'samples.total'],
			['attributed', fmt(s.attributed), 'samples.attributed'],
			['remote', fmt(s.remote), 'samples.remote'],
			['local', fmt(s.local), 'samples.local'],
			['far tier', s.far === undefined ? undefined : fmt(s.far) +
				' (pages on nodes without CPUs)', 'samples.far'],
			['lost', fmt(s.lost), 'samples.lost'],
			['throttled', fmt(s.throttled), 'samples.throttled'],
			['dropped', fmt(s.dropped), 'samples.dropped'],
			['nodes', fmt(R.nodes), 'nodes'],
			['threads', fmt(run.threads), 'run.threads'],
			['regions', fmt((R.regions || []).length)]
		];
		if (rw)
			facts.push(['runtime wait', fmt(rw.samples) + ' samples (' + pct(rw.share) +
				') in a runtime\'s wait loop']);
		if (rw && rw.program)
			facts.push(['program\'s own waits', fmt(rw.program.samples) + ' samples (' +
				pct(rw.program.share) + ') in poll loops: ' + rw.program.loops.map(function (l) {
					return fmt(l.samples) + ' at ' + l.lines.join(' and ') +
						(l.variable ? ' on ' + l.variable : '');
				}).join(', '), 'samples.runtime_wait.program']);
		if (s.kernel_time)
			facts.push(['kernel', s.kernel_time.seen ? fmt(s.kernel_time.samples) + ' samples (' +
				pct(s.kernel_time.share) + ') in the kernel on the program\'s behalf, ' +
				fmt(s.kernel_time.syscalls) + ' of them in system calls' :
				'not seen (' + s.kernel_time.why + ')', 'samples.kernel_time']);
		if (run.sampling_error)
			facts.push(['sampling error', run.sampling_error]);
		if (s.unwritten_max_ms)
			facts.push(['unwritten', 'up to ' + fmt(s.unwritten_max_ms) + ' ms of samples ' +
				'before the end may be missing']);
		if (s.write_error)
			facts.push(['write error', s.write_error]);
		d3.select('#run h1').text('memphis report: ' + (run.exe || R.rundir));
		var dl = d3.select('#run-facts');
		facts.forEach(function (f) {
			if (f[1] === undefined || f[1] === null) return;
			dl.append('dt').text(f[0]);
			dl.append('dd').attr('data-key', f[2] || null).text(f[1]);
		});
		document.title = 'memphis: ' + (run.exe || R.rundir || 'report');
	}

	function notes(shown) {
		var n = d3.select('#notes'), s = R.samples || {};
		if (!s.total)
			note(n, 'This run has no samples: the program ran too briefly for the sampling ' +
				'period, or sampling failed (see backend and sampling error). Nothing to draw.');
		else if (!R.variables || !R.variables.length)
			note(n, 'No sample had a data address in a known variable: no variable to show.');
		else if (shown.length === 1)
			note(n, 'One variable only has attributed samples.');
		if (nodes === 1)
			note(n, 'One NUMA node: every access is local; the views still show which ' +
				'thread works on which pages, and when.');
		if (R.no_remote && nodes > 1 && s.total)
			note(n, 'No remote samples at all: the tables hold all samples.');
		(R.warnings || []).forEach(function (w) { note(n, 'warning: ' + w); });
		(R.damage || []).forEach(function (w) { note(n, 'damage: ' + w); });
	}

	/* the nodes without CPUs (run.nodes, a run with such a node): their pages' accesses are
	 * the far tier's, not remote */
	function farNodes() {
		var far = {};
		((R.run || {}).nodes || []).forEach(function (n) { if (n.cpus === 0) far[n.node] = 1; });
		return far;
	}

	/* remote (and far-tier) share of each CPU node, from the variables' node x node matrices */
	function nodeShare() {
		var sel = d3.select('#node-share'), rows = [], far = farNodes();
		var anyFar = Object.keys(far).length > 0;
		for (var c = 0; c < nodes; c++) {
			var remote = 0, farN = 0, known = 0;
			if (far[c]) continue; /* no CPU: no sample is taken there */
			(R.variables || []).forEach(function (v) {
				var row = v.matrix && v.matrix.counts[c];
				for (var p = 0; row && p < nodes; p++) {
					known += row[p];
					if (far[p]) farN += row[p];
					else if (p !== c) remote += row[p];
				}
			});
			rows.push({ node: c, remote: remote, far: farN, known: known,
				share: known ? remote / known : 0, farShare: known ? farN / known : 0 });
		}
		var m = { l: 60, r: 20, t: 10, b: 30 }, w = Math.max(160, 70 * nodes), h = 140;
		var x = d3.scale.ordinal().domain(rows.map(function (r) { return nodeName(r.node); }))
			.rangeRoundBands([0, w], 0.2);
		var y = d3.scale.linear().domain([0, 1]).range([h, 0]);
		var g = svg(sel, w + m.l + m.r, h + m.t + m.b).append('g')
			.attr('transform', 'translate(' + m.l + ',' + m.t + ')');
		g.append('g').attr('class', 'axis').attr('transform', 'translate(0,' + h + ')')
			.call(d3.svg.axis().scale(x).orient('bottom'));
		g.append('g').attr('class', 'axis').call(d3.svg.axis().scale(y).orient('left').ticks(5)
			.tickFormat(d3.format('%')));
		g.selectAll('rect.bar').data(rows).enter().append('rect').attr('class', 'bar')
			.attr('x', function (r) { return x(nodeName(r.node)); }).attr('width', x.rangeBand())
			.attr('y', function (r) { return y(r.share); })
			.attr('height', function (r) { return Math.max(1, h - y(r.share)); })
			.attr('fill', function (r) { return nodeColor(r.node); })
			.append('title').text(function (r) {
				return nodeName(r.node) + ': ' + fmt(r.remote) + ' remote of ' + fmt(r.known);
			});
		if (anyFar) /* the far tier's share stacked on the remote one, hatched grey */
			g.selectAll('rect.far').data(rows).enter().append('rect').attr('class', 'far')
				.attr('x', function (r) { return x(nodeName(r.node)); })
				.attr('width', x.rangeBand())
				.attr('y', function (r) { return y(r.share + r.farShare); })
				.attr('height', function (r) { return h - y(r.farShare); })
				.attr('fill', '#999').append('title').text(function (r) {
					return nodeName(r.node) + ': ' + fmt(r.far) + ' far-tier of ' + fmt(r.known);
				});
		sel.append('p').attr('class', 'caption').text('Share of the attributed samples taken on ' +
			'each node\'s CPUs whose page was on another node (known homes only)' + (anyFar ?
			'; in grey above it, on a node without CPUs (the far tier: CXL, HBM, a GPU\'s ' +
			'memory), counted apart from remote.' : '.'));
		table(sel, anyFar ? ['node', 'remote', 'with known home', 'remote share', 'far tier',
			'far-tier share'] : ['node', 'remote', 'with known home', 'remote share'],
		rows.map(function (r) {
			var cells = [{ v: nodeName(r.node) }, { v: r.remote, num: 1 },
				{ v: r.known, num: 1 }, { v: r.share, text: pct(r.share) }];
			if (anyFar)
				cells.push({ v: r.far, num: 1 }, { v: r.farShare, text: pct(r.farShare) });
			return { cells: cells };
		}), 'node-share');
	}

	function nodeTables(select) {
		var sel = d3.select('#tables');
		if (!R.tables || !R.tables.length) {
			missing(sel, 'No table: no attributed samples.');
			return;
		}
		sel.append('p').attr('class', 'caption').text('Samples per node of the sampling CPU (' +
			(R.table_mode || 'remote') + ' accesses' + (R.far_tables ? ' to another node with ' +
			'CPUs' : '') + '), by variable; click a row for its views, a header to sort.');
		R.tables.forEach(function (t) { nodeTable(sel, t, 'node-table', select); });
		if (!R.far_tables)
			return;
		sel.append('p').attr('class', 'caption').text('Far-tier samples per node of the ' +
			'sampling CPU (pages on a node without CPUs: CXL, HBM, a GPU\'s memory), by variable.');
		if (!R.far_tables.length)
			missing(sel, 'No far-tier sample.');
		R.far_tables.forEach(function (t) { nodeTable(sel, t, 'node-table far', select); });
	}

	/* one table of the per-node tables: t of the JSON's tables or far_tables */
	function nodeTable(sel, t, cls, select) {
		var wrap = sel.append('div').attr('class', cls).attr('data-node', t.node)
			.attr('data-total', t.total);
		wrap.append('h3').text(t.label + ': ' + fmt(t.total) + ' samples');
		table(wrap, ['#', 'variable', 'kind', 'samples', 'share', 'top line'],
			t.entries.map(function (e) {
				var top = e.items && e.items.length ? e.items[0] : null;
				return { name: e.name, cells: [{ v: e.rank, num: 1 }, { v: e.name },
					{ v: e.kind || '' }, { v: e.count, num: 1 },
					{ v: t.total ? e.count / t.total : 0, text: pct(e.count / t.total) },
					{ v: top ? top.name + ' (' + fmt(top.count) + ')' : '' }] };
			})).attr('class', 'var-row')
			.attr('data-var', function (r) { return r.name; })
			.on('click', function (r) { select(r.name); });
	}

	/* ---- regions over time ---- */
	function regions() {
		var regs = R.regions || [], sel = d3.select('#region-chart');
		if (!regs.length) {
			missing(sel, 'No region in this run.');
			return;
		}
		var t0 = d3.min(regs, function (r) { return r.t_start_ns; });
		var t1 = d3.max(regs, function (r) { return Math.max(r.t_end_ns, r.t_start_ns); });
		var names = d3.set(regs.map(function (r) { return r.name; })).values();
		var m = { l: 110, r: 20, t: 10, b: 34 }, w = 640, h = Math.max(30, 22 * names.length);
		/* runs that took no time (a synthetic run): a 1 ms axis, not one of nanoseconds */
		var x = d3.scale.linear().domain([0, Math.max(1, (t1 - t0) / 1e6)]).range([0, w]);
		var y = d3.scale.ordinal().domain(names).rangeRoundBands([0, h], 0.2);
		var dens = d3.scale.linear().domain([0, d3.max(regs, function (r) {
			return r.samples / Math.max(1e-6, (r.t_end_ns - r.t_start_ns) / 1e6);
		}) || 1]).range(['#c6dbef', '#08519c']);
		var g = svg(sel, w + m.l + m.r, h + m.t + m.b).append('g')
			.attr('transform', 'translate(' + m.l + ',' + m.t + ')');
		g.append('g').attr('class', 'axis').attr('transform', 'translate(0,' + h + ')')
			.call(d3.svg.axis().scale(x).orient('bottom').ticks(8));
		g.append('text').attr('x', w).attr('y', h + 30).attr('text-anchor', 'end')
			.text('ms since the first region started');
		g.append('g').attr('class', 'axis').call(d3.svg.axis().scale(y).orient('left'));
		g.selectAll('rect.region').data(regs).enter().append('rect').attr('class', 'region')
			.attr('x', function (r) { return x((r.t_start_ns - t0) / 1e6); })
			.attr('width', function (r) { return Math.max(1, x((r.t_end_ns - r.t_start_ns) / 1e6)); })
			.attr('y', function (r) { return y(r.name); }).attr('height', y.rangeBand())
			.attr('fill', function (r) {
				return r.lost || r.throttled ? '#d62728' :
					dens(r.samples / Math.max(1e-6, (r.t_end_ns - r.t_start_ns) / 1e6));
			})
			.append('title').text(function (r) {
				return r.name + ' #' + r.seq + ': ' + ((r.t_end_ns - r.t_start_ns) / 1e6).toFixed(2) +
					' ms, ' + fmt(r.samples) + ' samples, lost ' + fmt(r.lost) +
					', throttled ' + fmt(r.throttled);
			});
		sel.append('p').attr('class', 'caption').text('Each run of a region: darker bars took ' +
			'more samples per ms; red ones lost or throttled samples.');
		var det = d3.select('#region-table').append('details').property('open', regs.length <= 10);
		det.append('summary').text(regs.length + ' region runs');
		table(det, ['seq', 'name', 'start (ms)', 'duration (ms)',
			'samples', 'lost', 'throttled', 'dropped'], regs.map(function (r) {
			var st = (r.t_start_ns - t0) / 1e6, du = (r.t_end_ns - r.t_start_ns) / 1e6;
			return { cells: [{ v: r.seq, num: 1 }, { v: r.name }, { v: st, text: st.toFixed(2) },
				{ v: du, text: du.toFixed(2) }, { v: r.samples, num: 1 }, { v: r.lost, num: 1 },
				{ v: r.throttled, num: 1 }, { v: r.dropped, num: 1 }] };
		}), 'regions');
	}

	/* ---- per variable ---- */
	function viewBox(sel, name, title, caption) {
		var v = sel.append('div').attr('class', 'view').attr('data-view', name);
		v.append('h3').text(title);
		if (caption) v.append('p').attr('class', 'caption').text(caption);
		return v;
	}

	function matrixView(sel, v) {
		var box = viewBox(sel, 'matrix', 'Node x node', 'Rows: node of the sampling CPU; ' +
			'columns: home node of the page (?: unknown). The diagonal is local.');
		var counts = v.matrix ? v.matrix.counts : [];
		if (!counts.length) { missing(box, 'No matrix in the report.'); return; }
		var n = counts.length, cs = n > 8 ? 24 : 44, m = { l: 60, t: 40 };
		var max = d3.max(counts, function (r) { return d3.max(r); }) || 1;
		var col = d3.scale.sqrt().domain([0, max]).range(['#f7fbff', '#08306b']);
		var g = svg(box, m.l + n * cs + 10, m.t + n * cs + 10).append('g')
			.attr('transform', 'translate(' + m.l + ',' + m.t + ')');
		counts.forEach(function (row, c) {
			g.append('text').attr('x', -6).attr('y', c * cs + cs / 2 + 4)
				.attr('text-anchor', 'end').text(nodeName(c));
			g.append('text').attr('x', c * cs + cs / 2).attr('y', -6)
				.attr('text-anchor', 'middle').text(nodeName(c));
			row.forEach(function (k, p) {
				g.append('rect').attr('class', 'cell').attr('x', p * cs).attr('y', c * cs)
					.attr('width', cs - 1).attr('height', cs - 1).attr('fill', col(k))
					.attr('stroke', p === c ? '#444' : 'none')
					.append('title').text(nodeName(c) + ' CPU -> ' + nodeName(p) + ' page: ' + fmt(k));
				if (n <= 8)
					g.append('text').attr('x', p * cs + cs / 2).attr('y', c * cs + cs / 2 + 4)
						.attr('text-anchor', 'middle').attr('fill', k > max / 2 ? '#fff' : '#000')
						.text(fmt(k));
			});
		});
	}

	/* --by member (the page asks for it): each member's samples by node of the sampling CPU,
	 * the split advice and the lines stored to from two nodes */
	function membersView(sel, v) {
		var ms = v.members;
		if (!ms || !ms.list || !ms.list.length) return; /* no type with members: no view */
		var box = viewBox(sel, 'members', 'Member x node', 'Rows: members of ' + v.name + ' (' +
			fmt(ms.element_bytes) + ' bytes per element); columns: node of the sampling CPU; ' +
			'the title of a cell: its remote share.');
		var n = ms.list[0].counts.length, cs = 56, lw = 12 + 7 * d3.max(ms.list, function (m) {
			return m.name.length;
		}), m = { l: Math.min(lw, 360), t: 30 };
		var rowSum = function (r) { return d3.sum(r); };
		var max = d3.max(ms.list, function (x) { return d3.max(x.counts.map(rowSum)); }) || 1;
		var col = d3.scale.sqrt().domain([0, max]).range(['#f7fbff', '#08306b']);
		var g = svg(box, m.l + n * cs + 10, m.t + ms.list.length * 24 + 10).append('g')
			.attr('transform', 'translate(' + m.l + ',' + m.t + ')');
		for (var c = 0; c < n; c++)
			g.append('text').attr('x', c * cs + cs / 2).attr('y', -8)
				.attr('text-anchor', 'middle').text(nodeName(c));
		ms.list.forEach(function (x, i) {
			g.append('text').attr('x', -6).attr('y', i * 24 + 16).attr('text-anchor', 'end')
				.text(x.name);
			x.counts.forEach(function (row, c) {
				var k = rowSum(row), rem = d3.sum(row.slice(0, n - 1)) - (c < n - 1 ? row[c] : 0);
				g.append('rect').attr('class', 'cell').attr('x', c * cs).attr('y', i * 24)
					.attr('width', cs - 1).attr('height', 23).attr('fill', col(k))
					.append('title').text(x.name + ', ' + nodeName(c) + ' CPU: ' + fmt(k) +
						' samples' + (k ? ', ' + pct(rem / k) + ' remote' : ''));
				g.append('text').attr('x', c * cs + cs / 2).attr('y', i * 24 + 16)
					.attr('text-anchor', 'middle').attr('fill', k > max / 2 ? '#fff' : '#000')
					.text(fmt(k));
			});
		});
		(ms.split || []).forEach(function (s) {
			box.append('p').attr('class', 'advice').text('split: ' + s.members.join(', ') + ' (' +
				fmt(s.bytes) + ' bytes per element) used by ' + ('node' in s ? 'node ' + s.node :
				'tid ' + s.tid) + ' (' + pct(s.share) + ')');
		});
		(ms.shared_lines || []).forEach(function (l) {
			box.append('p').attr('class', 'advice').text('line at offset ' + l.offset +
				' stored to from ' + l.sides.map(function (s) {
					return 'node ' + s.node + ' (' + fmt(s.stores) + ' samples, ' +
						(s.member || 'padding') + ' at ' + s.line + ')';
				}).join(' and ') + ': pad or separate them');
		});
	}

	function pagesView(sel, v) {
		var box = viewBox(sel, 'pages', 'Home nodes of its pages', 'Distinct pages sampled by ' +
			'home node' + (v.first_touch ? ', and pages first touched, by node' : '') + '.');
		var sp = v.sampled_pages ? v.sampled_pages.by_node : [];
		var ft = v.first_touch ? v.first_touch.by_node : null;
		var rows = sp.map(function (k, i) {
			return { node: i, sampled: k, touched: ft ? ft[i] || 0 : null };
		});
		if (!rows.length) { missing(box, 'No page data in the report.'); return; }
		var m = { l: 50, r: 10, t: 10, b: 24 }, w = Math.max(140, 60 * rows.length), h = 120;
		var x = d3.scale.ordinal().domain(rows.map(function (r) { return r.node; }))
			.rangeRoundBands([0, w], 0.2);
		var max = d3.max(rows, function (r) { return Math.max(r.sampled, r.touched || 0); }) || 1;
		var y = d3.scale.linear().domain([0, max]).range([h, 0]);
		var g = svg(box, w + m.l + m.r, h + m.t + m.b).append('g')
			.attr('transform', 'translate(' + m.l + ',' + m.t + ')');
		g.append('g').attr('class', 'axis').attr('transform', 'translate(0,' + h + ')')
			.call(d3.svg.axis().scale(x).orient('bottom').tickFormat(nodeName));
		g.append('g').attr('class', 'axis').call(d3.svg.axis().scale(y).orient('left').ticks(4));
		var bw = ft ? x.rangeBand() / 2 : x.rangeBand();
		rows.forEach(function (r) {
			g.append('rect').attr('class', 'bar').attr('x', x(r.node)).attr('width', bw)
				.attr('y', y(r.sampled)).attr('height', Math.max(1, h - y(r.sampled)))
				.attr('fill', nodeColor(r.node))
				.append('title').text(nodeName(r.node) + ': ' + fmt(r.sampled) + ' pages sampled');
			if (ft)
				g.append('rect').attr('class', 'bar').attr('x', x(r.node) + bw).attr('width', bw)
					.attr('y', y(r.touched)).attr('height', Math.max(1, h - y(r.touched)))
					.attr('fill', nodeColor(r.node)).attr('fill-opacity', 0.45)
					.append('title').text(nodeName(r.node) + ': ' + fmt(r.touched) +
						' pages first touched');
		});
	}

	function threadLabel(p, i) {
		var t = p.threads[i];
		return 'thread ' + t.index + ' (tid ' + t.tid + ', ' + nodeName(t.node) + ')';
	}

	/* swatches of the threads (their colour in the pattern views) and of the nodes */
	function legend(sel, p) {
		var l = sel.append('div').attr('class', 'legend');
		var add = function (color, text) {
			var s = l.append('span').attr('class', 'swatch');
			s.append('i').style('background', color);
			s.append('span').text(text);
		};
		if (p.threads.length <= 30)
			p.threads.forEach(function (t, i) { add(threadColor(i), 'thread ' + t.index); });
		else
			l.append('span').text(p.threads.length + ' threads (colours repeat every 30); ');
		for (var n = 0; n < nodes; n++) add(nodeColor(n), nodeName(n));
		add('#999', 'first touch by a thread without samples here');
	}

	/* threads x page blocks, with the first-touch thread and the home node of each block */
	/* the blocks with samples: [lo, hi] (every block when none) */
	function sampledRange(p) {
		var lo = p.blocks, hi = -1;
		p.thread_blocks.forEach(function (row) {
			row.forEach(function (k, b) { if (k) { lo = Math.min(lo, b); hi = Math.max(hi, b); } });
		});
		((p.time || {}).cells || []).forEach(function (c) {
			lo = Math.min(lo, c[1]); hi = Math.max(hi, c[1]);
		});
		return hi < 0 ? [0, p.blocks - 1] : [lo, hi];
	}

	/* threads x page blocks lo .. hi, with the first-touch thread and the home node of each */
	function threadsView(sel, v, lo, hi) {
		var p = v.pattern;
		var box = viewBox(sel, 'threads', 'Threads x page blocks', p ? 'Samples of each ' +
			'thread (rows) in each block of ' + bytes(p.block_bytes) + ' (columns, offset in ' +
			'the variable). Below: the thread that first touched most of each block\'s pages ' +
			'(grey: a thread without samples here) and the block\'s home node.' : null);
		if (!p) { missing(box, MISSING); return; }
		if (!p.blocks || !p.threads.length) { missing(box, 'No sample on its pages.'); return; }
		box.attr('data-lo', lo).attr('data-hi', hi);
		var nt = p.threads.length, nb = hi - lo + 1, W = 640;
		var rh = Math.max(2, Math.min(14, Math.floor(360 / nt))), cw = W / nb;
		var m = { l: nt <= 40 ? 190 : 60, t: 6 }, H = nt * rh, sh = 12;
		var max = d3.max(p.thread_blocks, function (r) { return d3.max(r); }) || 1;
		var col = d3.scale.sqrt().domain([0, max]).range(['#eef3fb', '#08306b']);
		var x = d3.scale.linear().domain([lo * p.block_bytes, (hi + 1) * p.block_bytes]).range([0, W]);
		if (nt > 40) note(box, fmt(nt) + ' threads: one row each, ' + rh + ' px high.');
		var g = svg(box, m.l + W + 20, m.t + H + 2 * sh + 60).append('g')
			.attr('transform', 'translate(' + m.l + ',' + m.t + ')');
		p.thread_blocks.forEach(function (row, i) {
			if (nt <= 40)
				g.append('text').attr('x', -6).attr('y', i * rh + rh / 2 + 4)
					.attr('text-anchor', 'end').text(threadLabel(p, i));
			row.forEach(function (k, b) {
				if (!k || b < lo || b > hi) return;
				g.append('rect').attr('class', 'cell').attr('x', (b - lo) * cw).attr('y', i * rh)
					.attr('width', Math.max(1, cw)).attr('height', rh).attr('fill', col(k))
					.append('title').text(threadLabel(p, i) + ', block ' + b + ': ' + fmt(k));
			});
		});
		var strip = function (y, label, vals, color, what) {
			g.append('text').attr('x', -6).attr('y', y + sh - 2).attr('text-anchor', 'end').text(label);
			(vals || []).forEach(function (val, b) {
				if (b < lo || b > hi) return;
				g.append('rect').attr('class', 'strip').attr('x', (b - lo) * cw).attr('y', y)
					.attr('width', Math.max(1, cw)).attr('height', sh - 2).attr('fill', color(val))
					.append('title').text('block ' + b + ': ' + what(val));
			});
		};
		strip(H + 4, 'first touch', p.block_first_touch, function (t) {
			return t === null ? '#fff' : t < 0 ? '#999' : threadColor(t);
		}, function (t) {
			return t === null ? 'unknown' : t < 0 ? 'a thread without samples here' : threadLabel(p, t);
		});
		strip(H + 4 + sh, 'home node', p.block_home, function (n) {
			return n === null ? '#ddd' : nodeColor(n);
		}, nodeName);
		g.append('g').attr('class', 'axis').attr('transform', 'translate(0,' + (H + 4 + 2 * sh) + ')')
			.call(d3.svg.axis().scale(x).orient('bottom').ticks(6).tickFormat(bytes));
		legend(box, p);
	}

	/* samples over region time (x) against offset in the variable (y) */
	function timeView(sel, v, lo, hi) {
		var p = v.pattern;
		var box = viewBox(sel, 'time', 'Time x address', p && p.time ? 'Samples per ' +
			(p.time.bin_ns / 1e6).toFixed(2) + ' ms of region time (x) and block of ' +
			bytes(p.block_bytes) + ' (y), coloured by the thread with most of them or its node.' : null);
		if (!p || !p.time) { missing(box, MISSING); return; }
		var cells = p.time.cells || [];
		if (!cells.length || !p.blocks) { missing(box, 'No sample on its pages.'); return; }
		var by = box.append('div').attr('class', 'colour-by');
		by.append('span').text('colour by ');
		['thread', 'node'].forEach(function (k, i) {
			var l = by.append('label');
			l.append('input').attr('type', 'radio').attr('name', 'colour-by').attr('value', k)
				.property('checked', i === 0).on('change', function () { draw(k); });
			l.append('span').text(k + ' ');
		});
		var W = 640, H = Math.min(320, Math.max(60, 2 * p.blocks)), m = { l: 70, t: 6, b: 34 };
		var x = d3.scale.linear().domain([0, p.time.bins * p.time.bin_ns / 1e6]).range([0, W]);
		var y = d3.scale.linear().domain([lo * p.block_bytes, (hi + 1) * p.block_bytes]).range([0, H]);
		var cw = W / p.time.bins, ch = H / (hi - lo + 1);
		cells = cells.filter(function (c) { return c[1] >= lo && c[1] <= hi; });
		var max = d3.max(cells, function (c) { return c[2]; }) || 1;
		var g = svg(box, m.l + W + 20, m.t + H + m.b).append('g')
			.attr('transform', 'translate(' + m.l + ',' + m.t + ')');
		g.append('g').attr('class', 'axis').attr('transform', 'translate(0,' + H + ')')
			.call(d3.svg.axis().scale(x).orient('bottom').ticks(8));
		g.append('text').attr('x', W).attr('y', H + 30).attr('text-anchor', 'end')
			.text('ms of region time');
		g.append('g').attr('class', 'axis').call(d3.svg.axis().scale(y).orient('left').ticks(6)
			.tickFormat(bytes));
		var rects = g.selectAll('rect.cell').data(cells).enter().append('rect').attr('class', 'cell')
			.attr('x', function (c) { return c[0] * cw; }).attr('y', function (c) { return (c[1] - lo) * ch; })
			.attr('width', Math.max(1, cw)).attr('height', Math.max(1, ch))
			.attr('fill-opacity', function (c) { return 0.3 + 0.7 * c[2] / max; });
		rects.append('title').text(function (c) {
			return 'bin ' + c[0] + ', block ' + c[1] + ': ' + fmt(c[2]) + ' samples, most by ' +
				(p.threads[c[3]] ? threadLabel(p, c[3]) : '?');
		});
		function draw(k) {
			rects.attr('fill', function (c) {
				var t = p.threads[c[3]];
				return k === 'thread' ? threadColor(c[3]) : nodeColor(t ? t.node : null);
			});
		}
		draw('thread');
	}

	/* the variable's top lines over all tables, with their source text */
	function linesView(sel, v) {
		var box = viewBox(sel, 'lines', 'Top source lines', 'Samples of this variable per ' +
			'source line (the tables\' lines, far tier too, all nodes), with the source when it was readable ' +
			'at report time.');
		var sum = {};
		(R.tables || []).concat(R.far_tables || []).forEach(function (t) {
			t.entries.forEach(function (e) {
				if (e.name !== v.name) return;
				(e.items || []).forEach(function (it) { sum[it.name] = (sum[it.name] || 0) + it.count; });
			});
		});
		var names = Object.keys(sum).sort(function (a, b) { return sum[b] - sum[a]; });
		if (v.first_touch && v.first_touch.line && names.indexOf(v.first_touch.line) < 0)
			names.push(v.first_touch.line);
		if (!names.length) { missing(box, 'No line in the tables for this variable.'); return; }
		var t = box.append('table').attr('class', 'lines');
		t.append('thead').append('tr').selectAll('th').data(['line', 'samples', 'source'])
			.enter().append('th').text(String);
		names.forEach(function (n) {
			var tr = t.append('tr').attr('data-line', n);
			tr.append('td').text(n + (v.first_touch && n === v.first_touch.line ? ' (first touch)' : ''));
			tr.append('td').attr('class', 'num').text(sum[n] === undefined ? '-' : fmt(sum[n]));
			var src = (P.sources || {})[n], td = tr.append('td');
			if (!src) { td.attr('class', 'missing').text('source not readable at report time'); return; }
			var pre = td.append('pre').attr('class', 'src').attr('title', src.path);
			src.text.forEach(function (line, i) {
				var no = src.first + i;
				pre.append('span').attr('class', no === src.line ? 'hot' : null)
					.text(d3.format('5d')(no) + '  ' + line);
				pre.append('span').text('\n');
			});
		});
	}

	function adviceView(sel, v) {
		var a = v.advice, box = sel.append('div').attr('class', 'advice').attr('data-view', 'advice');
		var perRank = (v.ranks || []).filter(function (r) { return r.advice; });
		if (!a && perRank.length) {
			/* an MPI job: each rank's own advice (its pattern: --rank N) */
			perRank.forEach(function (r) {
				var p = box.append('p').attr('class', 'rank-advice');
				p.append('span').attr('class', 'rank').text('rank ' + r.rank + ': ');
				p.append('span').attr('class', 'pattern').text(r.advice.pattern.replace('_', ' '));
				p.append('span').attr('class', 'action').text(r.advice.action);
			});
			return;
		}
		if (!a) {
			box.append('span').attr('class', 'missing').text('No advice in this report (run with ' +
				'--advice data).');
			return;
		}
		box.append('span').attr('class', 'pattern').text(a.pattern.replace('_', ' '));
		box.append('span').attr('class', 'action').text(a.action);
		box.append('p').attr('class', 'evidence').text(a.evidence);
		var where = [];
		if (a.line) where.push('line to change: ' + a.line);
		if (a.loop) where.push('loop that reads it: ' + a.loop);
		if (a.block_bytes) where.push('block per thread: ' + bytes(a.block_bytes));
		if (where.length) box.append('p').attr('class', 'where').text(where.join('; '));
	}

	/* all blocks of the variable in the pattern views, or only those with samples */
	var wholeVariable = false;

	function showVariable(v) {
		var sel = d3.select('#variable').html('');
		d3.selectAll('nav#var-list button').classed('selected', function (d) { return d === v; });
		d3.selectAll('tr.var-row').classed('selected', function (r) { return r.name === v.name; });
		sel.attr('data-var', v.name);
		sel.append('h2').text(v.name);
		var facts = [v.kind, fmt(v.samples) + ' samples', fmt(v.remote) + ' remote',
			fmt(v.local) + ' local'];
		if (v.size) facts.push(bytes(v.size));
		if (v.bytes) facts.push(fmt(v.objects) + ' objects, ' + bytes(v.bytes));
		if (v.decl) facts.push('declared at ' + v.decl);
		if (v.first_touch) facts.push('first touch by ' + v.first_touch.thread + ' at ' +
			v.first_touch.line + ' (' + fmt(v.first_touch.thread_pages) + ' of ' +
			fmt(v.first_touch.pages) + ' pages)');
		if (v.first_touch && v.first_touch.refaults)
			facts.push('re-faulted: its ' + fmt(v.first_touch.distinct_pages) +
				' distinct pages mapped anew ' + fmt(v.first_touch.refaults) + ' times');
		var kt = (R.samples || {}).kernel_time, ke = kt && (kt.entries || []).filter(function (e) {
			return e.variable === v.name;
		})[0];
		if (ke)
			facts.push('kernel: ' + fmt(ke.samples) + ' samples (' + pct(ke.samples / kt.samples) +
				' of the kernel\'s): ' + ke.functions.map(function (f) { return f.name; }).join(', '));
		sel.append('p').text(facts.join('; '));
		adviceView(sel, v);
		var lo = 0, hi = v.pattern ? v.pattern.blocks - 1 : 0;
		if (v.pattern && v.pattern.blocks) {
			var r = sampledRange(v.pattern), z = sel.append('label').attr('class', 'zoom');
			/* a static array sized for the largest input: its samples in a corner */
			z.append('input').attr('type', 'checkbox').property('checked', !wholeVariable)
				.on('change', function () { wholeVariable = !this.checked; showVariable(v); });
			z.append('span').text(' pattern views: only the blocks with samples (' + r[0] + ' to ' +
				r[1] + ' of ' + v.pattern.blocks + ', ' + bytes(r[0] * v.pattern.block_bytes) +
				' to ' + bytes((r[1] + 1) * v.pattern.block_bytes) + ')');
			if (!wholeVariable) { lo = r[0]; hi = r[1]; }
		}
		var views = sel.append('div').attr('class', 'views');
		guard('The node x node view of ' + v.name, function () { matrixView(views, v); });
		guard('The pages view of ' + v.name, function () { pagesView(views, v); });
		guard('The members view of ' + v.name, function () { membersView(views, v); });
		guard('The threads view of ' + v.name, function () { threadsView(views, v, lo, hi); });
		guard('The time view of ' + v.name, function () { timeView(views, v, lo, hi); });
		guard('The source lines of ' + v.name, function () { linesView(sel, v); });
	}

	function main() {
		var shown = (Array.isArray(R.variables) ? R.variables : []).filter(function (v) {
			return v && typeof v === 'object' && v.shown;
		});
		var byName = {};
		shown.forEach(function (v) { byName[v.name] = v; });
		var show = function (v) {
			guard('The views of ' + v.name, function () { showVariable(v); });
		};
		var select = function (name) { if (byName[name]) show(byName[name]); };
		guard('The run header', header);
		guard('The notes', function () { notes(shown); });
		guard('The remote share per node', nodeShare);
		guard('The per-node tables', function () { nodeTables(select); });
		guard('The regions', regions);
		var nav = d3.select('nav#var-list');
		nav.append('span').text('Variables: ');
		nav.selectAll('button').data(shown).enter().append('button')
			.attr('title', function (v) { return v.name; })
			.text(function (v) { return v.name; }).on('click', show);
		if (shown.length)
			show(shown[0]);
		else
			missing(d3.select('#variable'), 'No variable to show.');
		var lib = P.library || {};
		d3.select('#footer').text('memphis-report ' + ((R.run || {}).memphis_version || '') +
			'; charts drawn with ' + (lib.name || 'd3') + ' ' + d3.version + ' (inlined from ' +
			(lib.file || '?') + '); schema ' + R.schema + '.');
	}

	main();
}());
