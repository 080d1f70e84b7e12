// SPDX-License-Identifier: GPL-2.0
// Run by Chromium inside the page tests/browser/check.py makes around an SVG of
// `kvmchurn plot`: what the browser drew, measured by its own layout, written as
// JSON into <pre id="kc-result"> for --dump-dom to carry out.
(function () {
	"use strict";
	var svg = document.querySelector("svg");
	var out = { width: 0, height: 0, vms: [], legend: [], hists: [], metrics: [], text: "" };
	var box = svg.getBoundingClientRect();

	out.width = box.width;
	out.height = box.height;
	out.cls = svg.getAttribute("class");
	svg.querySelectorAll("g.vm").forEach(function (vm) {
		var row = { tgid: vm.getAttribute("data-tgid"), windows: [] };

		vm.querySelectorAll("g.window").forEach(function (w) {
			var drawn = 0, parts = [];

			w.querySelectorAll("rect.seg").forEach(function (r) {
				drawn += r.getBBox().width;
				parts.push(r.getAttribute("data-part"));
			});
			row.windows.push({
				lane: w.getAttribute("data-lane"),
				window: w.getAttribute("data-window"),
				sum: Number(w.getAttribute("data-sum")),
				drawn: drawn,
				parts: parts,
			});
		});
		out.vms.push(row);
	});
	svg.querySelectorAll("g.axis[data-lane]").forEach(function (a) {
		out.lanes = out.lanes || {};
		out.lanes[a.getAttribute("data-lane")] = Number(a.getAttribute("data-px-per-ns"));
	});
	svg.querySelectorAll("g.legend-item").forEach(function (l) {
		out.legend.push(l.getAttribute("data-part"));
	});
	svg.querySelectorAll("g.hist").forEach(function (h) {
		var n = 0;

		h.querySelectorAll("rect.bucket").forEach(function (b) {
			n += Number(b.getAttribute("data-count"));
		});
		out.hists.push({ metric: h.getAttribute("data-metric"),
				 count: Number(h.getAttribute("data-count")), buckets: n,
				 pcts: h.querySelectorAll("g.pct").length });
	});
	svg.querySelectorAll("g.metric").forEach(function (m) {
		out.metrics.push({ metric: m.getAttribute("data-metric"),
				   bars: m.querySelectorAll("rect.bar").length });
	});
	out.text = svg.textContent;
	document.getElementById("kc-result").textContent = JSON.stringify(out);
})();
