/* The lineage view: draws the graph laid out by lineage_operators.cli.layout and answers clicks.
   Written for this project; no third-party code. */
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("lineage-data").textContent);
  var G = data.geometry, W = G.width;
  var svg = document.getElementById("graph"), viewport = document.getElementById("viewport");
  var panel = document.getElementById("panel");
  var view = { x: 20, y: 20, k: 1 };

  function esc(s) {
    return String(s == null ? "" : s).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }
  function clip(s, n) { s = String(s); return s.length > n ? "\u2026" + s.slice(s.length - n + 1) : s; }
  function colKey(ds, field) { return ds + ":" + field; }

  /* Column index: where each column is drawn and its edges both ways. */
  var rowOf = {}, upstream = {}, downstream = {}, datasetDeps = {};
  data.datasets.forEach(function (d, i) {
    d.columns.forEach(function (c, r) { rowOf[colKey(i, c[0])] = Math.min(r, G.maxRows); });
  });
  data.columnEdges.forEach(function (e) {
    var src = colKey(e[0], e[1]);
    if (e[3] === null) { (datasetDeps[e[2]] = datasetDeps[e[2]] || []).push(e); return; }
    var dst = colKey(e[2], e[3]);
    (upstream[dst] = upstream[dst] || []).push(e);
    (downstream[src] = downstream[src] || []).push(e);
  });

  /* Drawing: one string per layer, set once (fast for thousands of nodes). */
  function edgePath(x1, y1, x2, y2) {
    var dx = Math.max(30, (x2 - x1) / 2);
    return "M" + x1 + "," + y1 + " C" + (x1 + dx) + "," + y1 + " " + (x2 - dx) + "," + y2 + " " + x2 + "," + y2;
  }
  function mid(n) { return n.y + Math.min(n.h, G.header) / 2; }
  function draw() {
    var edges = [], nodes = [];
    data.jobs.forEach(function (j, i) {
      j.in.forEach(function (d) {
        var s = data.datasets[d];
        edges.push('<path class="edge" data-from="d' + d + '" data-to="j' + i + '" d="' + edgePath(s.x + W, mid(s), j.x, mid(j)) + '"/>');
      });
      j.out.forEach(function (d) {
        var t = data.datasets[d];
        edges.push('<path class="edge" data-from="j' + i + '" data-to="d' + d + '" d="' + edgePath(j.x + W, mid(j), t.x, mid(t)) + '"/>');
      });
      nodes.push('<g class="node job' + (j.failed ? " failed" : "") + '" data-node="j' + i + '" data-name="' + esc(j.name) +
        '" transform="translate(' + j.x + "," + j.y + ')"><title>' + esc(j.name) + '</title><rect class="box" rx="14" width="' + W +
        '" height="' + j.h + '"/><text class="title" x="14" y="' + (j.label[1] ? 17 : 24) + '">' +
        esc(clip(j.label[1] || j.label[0], j.failed ? 24 : 30)) + "</text>" +
        (j.label[1] ? '<text class="sub" x="14" y="31">' + esc(clip(j.label[0], 36)) + "</text>" : "") +
        (j.failed ? '<text class="badge" x="' + (W - 42) + '" y="24">FAIL</text>' : "") + "</g>");
    });
    data.datasets.forEach(function (d, i) {
      nodes.push('<g class="node dataset' + (d.failed ? " failed" : "") + '" data-node="d' + i + '" data-name="' + esc(d.label) +
        '" transform="translate(' + d.x + "," + d.y + ')"><title>' + esc(d.label) + '</title><rect class="box" rx="3" width="' + W +
        '" height="' + d.h + '"/><text class="title" x="10" y="17">' + esc(clip(d.name, 30)) + "</text></g>");
    });
    document.getElementById("edges").innerHTML = edges.join("");
    document.getElementById("nodes").innerHTML = nodes.join("");
    var failedRuns = 0;
    data.jobs.forEach(function (j) { j.runs.forEach(function (r) { if (r.state === "FAIL") failedRuns++; }); });
    document.getElementById("counts").textContent = data.jobs.length + " jobs \u00b7 " + data.datasets.length + " datasets \u00b7 " +
      data.columnEdges.length + " column edges" + (failedRuns ? " \u00b7 " + failedRuns + " failed runs" : "") +
      (data.skipped ? " \u00b7 some input skipped (see panel)" : "");
  }

  /* Column rows are drawn only for datasets in view (and zoomed in enough to read): a large
     graph then costs one box per node, whatever its column count. */
  var rowsDrawn = {};
  function rowsMarkup(i) {
    var d = data.datasets[i], rows = [];
    d.columns.slice(0, G.maxRows).forEach(function (c, r) {
      rows.push('<g class="col" data-col="' + esc(colKey(i, c[0])) + '" transform="translate(0,' + (G.header + r * G.row) +
        ')"><rect width="' + W + '" height="' + G.row + '"/><text x="10" y="12">' + esc(clip(c[0], 26)) +
        '</text><text class="type" x="' + (W - 8) + '" y="12" text-anchor="end">' + esc(clip(c[1] || "", 12)) + "</text></g>");
    });
    if (d.columns.length > G.maxRows) {
      rows.push('<g class="col more" data-more="d' + i + '" transform="translate(0,' + (G.header + G.maxRows * G.row) +
        ')"><rect width="' + W + '" height="' + G.row + '"/><text x="10" y="12">+' + (d.columns.length - G.maxRows) +
        " more (see panel)</text></g>");
    }
    return rows.join("");
  }
  function ensureRows(i) {
    if (rowsDrawn[i]) return;
    rowsDrawn[i] = true;
    var el = nodeEl("d" + i);
    if (el && data.datasets[i].columns.length) el.insertAdjacentHTML("beforeend", rowsMarkup(i));
  }
  var LOD = 0.35, rowTimer = null;
  function drawVisibleRows() {
    svg.classList.toggle("overview", view.k < LOD);
    if (view.k < LOD) return;
    var r = svg.getBoundingClientRect();
    var x0 = -view.x / view.k, y0 = -view.y / view.k, x1 = x0 + r.width / view.k, y1 = y0 + r.height / view.k;
    data.datasets.forEach(function (d, i) {
      if (!rowsDrawn[i] && d.x + W >= x0 && d.x <= x1 && d.y + d.h >= y0 && d.y <= y1) ensureRows(i);
    });
  }

  /* Pan and zoom. */
  function apply() {
    viewport.setAttribute("transform", "translate(" + view.x + "," + view.y + ") scale(" + view.k + ")");
    clearTimeout(rowTimer);
    rowTimer = setTimeout(drawVisibleRows, 30);
  }
  function extent() {
    var all = data.jobs.concat(data.datasets), w = 0, h = 0;
    all.forEach(function (n) { w = Math.max(w, n.x + W); h = Math.max(h, n.y + n.h); });
    return { w: w, h: h };
  }
  function fit() {
    var e = extent(), r = svg.getBoundingClientRect();
    view.k = Math.min(1.5, Math.max(0.05, Math.min((r.width - 40) / (e.w || 1), (r.height - 40) / (e.h || 1))));
    view.x = Math.max(20, (r.width - e.w * view.k) / 2); view.y = Math.max(20, (r.height - e.h * view.k) / 3); apply();
  }
  function centreOn(n) {
    var r = svg.getBoundingClientRect();
    view.k = Math.max(view.k, 0.6);
    view.x = r.width / 2 - (n.x + W / 2) * view.k; view.y = r.height / 2 - (n.y + n.h / 2) * view.k; apply();
  }
  svg.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    var r = svg.getBoundingClientRect(), px = ev.clientX - r.left, py = ev.clientY - r.top;
    var k = Math.min(4, Math.max(0.03, view.k * Math.exp(-ev.deltaY * 0.0015)));
    view.x = px - (px - view.x) * k / view.k; view.y = py - (py - view.y) * k / view.k; view.k = k; apply();
  }, { passive: false });
  var drag = null;
  svg.addEventListener("mousedown", function (ev) { drag = { x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y, moved: false }; });
  window.addEventListener("mousemove", function (ev) {
    if (!drag) return;
    var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) { drag.moved = true; document.getElementById("canvas").classList.add("dragging"); }
    view.x = drag.vx + dx; view.y = drag.vy + dy; apply();
  });
  window.addEventListener("mouseup", function () { document.getElementById("canvas").classList.remove("dragging"); setTimeout(function () { drag = null; }, 0); });

  /* Selection. */
  var marked = [];
  function mark(el, cls) { if (el) { el.classList.add(cls); marked.push([el, cls]); } }
  function clearMarks() {
    marked.forEach(function (m) { m[0].classList.remove(m[1]); });
    marked = [];
    document.getElementById("column-edges").innerHTML = "";
  }
  function nodeEl(id) { return document.querySelector('.node[data-node="' + id + '"]'); }
  function colEl(ds, field) {
    var key = colKey(ds, field);
    if (rowOf[key] === undefined) return null;
    ensureRows(ds);
    if (rowOf[key] >= G.maxRows) return document.querySelector('.col[data-more="d' + ds + '"]');
    return document.querySelector('.col[data-col="' + CSS.escape(key) + '"]');
  }
  function rowY(ds, field) {
    var d = data.datasets[ds], r = rowOf[colKey(ds, field)];
    return r === undefined ? mid(d) : d.y + G.header + r * G.row + G.row / 2;
  }
  function transformText(t) { return t && t.length ? t.join(", ") : "unknown"; }
  function dsLink(i, field) {
    return '<li class="clickable" data-goto="d' + i + '"' + (field != null ? ' data-field="' + esc(field) + '"' : "") + ">" +
      esc(data.datasets[i].label) + (field != null ? "<b>." + esc(field) + "</b>" : "") + "</li>";
  }
  function jobLink(i) { return '<li class="clickable" data-goto="j' + i + '">' + esc(data.jobs[i].name) + "</li>"; }

  function selectNode(id) {
    clearMarks();
    mark(nodeEl(id), "selected");
    document.querySelectorAll('.edge[data-from="' + id + '"], .edge[data-to="' + id + '"]').forEach(function (e) { mark(e, "active"); });
    if (id[0] === "j") showJob(+id.slice(1)); else showDataset(+id.slice(1), null);
  }

  function showJob(i) {
    var j = data.jobs[i], h = ["<h2>" + esc(j.name) + "</h2>", '<div class="muted">job \u00b7 ' + esc(j.namespace) + "</div>"];
    if (j.failed) h.push('<p class="failed-text">Latest run failed</p>');
    h.push("<h3>Runs</h3><table><tr><th>state</th><th>started</th><th>duration</th><th>run id</th></tr>");
    j.runs.forEach(function (r) {
      h.push('<tr><td class="state-' + esc(r.state) + '">' + esc(r.state) + "</td><td>" + esc(r.start || "") + "</td><td>" +
        (r.duration == null ? "" : r.duration.toFixed(1) + " s") + '</td><td class="muted">' + esc(r.id.slice(0, 8)) + "</td></tr>");
      if (r.error) h.push('<tr><td colspan="4" class="failed-text run-error">' + esc(r.error) + "</td></tr>");
    });
    h.push("</table><h3>Reads</h3><ul>" + j.in.map(function (d) { return dsLink(d); }).join("") + "</ul>");
    h.push("<h3>Writes</h3><ul>" + j.out.map(function (d) { return dsLink(d); }).join("") + "</ul>");
    panel.innerHTML = h.join("");
  }

  function facetTable(obj) {
    var keys = Object.keys(obj || {}).filter(function (k) { return k[0] !== "_"; });
    if (!keys.length) return "";
    return "<table>" + keys.map(function (k) {
      var v = obj[k];
      return "<tr><th>" + esc(k) + "</th><td>" + esc(typeof v === "object" ? JSON.stringify(v) : v) + "</td></tr>";
    }).join("") + "</table>";
  }

  /* Data quality: the checks on this dataset (pass/fail/skip) and its dataQualityMetrics facet. */
  function qualitySection(d) {
    var metrics = d.facets.dataQualityMetrics || d.inputFacets.dataQualityMetrics, h = [];
    if (!(d.checks || []).length && !metrics) return "";
    h.push("<h3>Data quality</h3>");
    if ((d.checks || []).length) {
      h.push('<table class="checks"><tr><th>check</th><th>status</th><th>expected</th><th>actual</th></tr>');
      d.checks.forEach(function (c) {
        h.push('<tr class="check-' + esc(c.status) + '"><td>' + esc(c.name || c.type) + (c.column ? ' <span class="muted">' + esc(c.column) + "</span>" : "") +
          "</td><td>" + esc(c.status) + (c.severity ? ' <span class="muted">' + esc(c.severity) + "</span>" : "") +
          "</td><td>" + esc(c.expected || "") + "</td><td>" + esc(c.actual || "") + "</td></tr>");
      });
      h.push("</table>");
    }
    if (metrics) {
      var counts = {};
      ["rowCount", "bytes", "fileCount"].forEach(function (k) { if (metrics[k] != null) counts[k] = metrics[k]; });
      h.push(facetTable(counts));
      var columns = metrics.columnMetrics || {};
      if (Object.keys(columns).length) {
        h.push('<table class="metrics"><tr><th>column</th><th>metrics</th></tr>' + Object.keys(columns).map(function (c) {
          return "<tr><td>" + esc(c) + "</td><td>" + esc(JSON.stringify(columns[c])) + "</td></tr>";
        }).join("") + "</table>");
      }
    }
    return h.join("");
  }

  function showDataset(i, field) {
    var d = data.datasets[i], f = d.facets || {};
    var h = ["<h2>" + esc(d.name) + "</h2>", '<div class="muted">dataset \u00b7 ' + esc(d.namespace) + "</div>"];
    if (d.failed) h.push('<p class="failed-text">Touched by a failed run</p>');
    h.push("<h3>Columns</h3>");
    if (d.columns.length) {
      var desc = {};
      ((f.schema && f.schema.fields) || []).forEach(function (s) { desc[s.name] = s.description; });
      h.push('<table class="schema"><tr><th>name</th><th>type</th><th>description</th></tr>');
      d.columns.forEach(function (c) {
        h.push('<tr class="clickable' + (c[0] === field ? " selected" : "") + '" data-ds="' + i + '" data-field="' + esc(c[0]) + '"><td>' +
          esc(c[0]) + "</td><td>" + esc(c[1] || "") + '</td><td class="muted">' + esc(desc[c[0]] || "") + "</td></tr>");
      });
      h.push("</table>");
    } else h.push('<p class="muted">no schema facet</p>');
    if (field != null) h.push(columnDetails(i, field));
    var stats = Object.assign({}, d.inputFacets.inputStatistics || {}, d.outputFacets.outputStatistics || {});
    if (Object.keys(stats).length) h.push("<h3>Statistics</h3>" + facetTable(stats));
    h.push(qualitySection(d));
    if (f.lifecycleStateChange) h.push("<h3>Lifecycle</h3>" + facetTable(f.lifecycleStateChange));
    if (f.symlinks && f.symlinks.identifiers) {
      h.push("<h3>Symlinks</h3><ul>" + f.symlinks.identifiers.map(function (s) {
        return "<li>" + esc(s.namespace) + " \u00b7 " + esc(s.name) + ' <span class="muted">' + esc(s.type) + "</span></li>";
      }).join("") + "</ul>");
    }
    h.push("<h3>Written by</h3><ul>" + d.writers.map(jobLink).join("") + "</ul><h3>Read by</h3><ul>" + d.readers.map(jobLink).join("") + "</ul>");
    h.push("<h3>All facets</h3><details><summary>JSON</summary><pre>" + esc(JSON.stringify({ facets: f, inputFacets: d.inputFacets, outputFacets: d.outputFacets }, null, 2)) + "</pre></details>");
    panel.innerHTML = h.join("");
  }

  /* Column lineage: walk field edges transitively; dataset-level inputs are shown, not walked. */
  function walk(start, index, pick) {
    var seen = {}, queue = [start], found = [];
    seen[start] = true;
    while (queue.length) {
      (index[queue.shift()] || []).forEach(function (e) {
        found.push(e);
        var k = pick(e);
        if (!seen[k]) { seen[k] = true; queue.push(k); }
      });
    }
    return found;
  }
  function lineageOf(ds, field) {
    var key = colKey(ds, field);
    var up = walk(key, upstream, function (e) { return colKey(e[0], e[1]); });
    var down = walk(key, downstream, function (e) { return colKey(e[2], e[3]); });
    var targets = {}; targets[ds] = true;
    up.forEach(function (e) { targets[e[2]] = true; });
    var indirect = [];
    Object.keys(targets).forEach(function (t) { indirect = indirect.concat(datasetDeps[t] || []); });
    return { up: up, down: down, indirect: indirect };
  }
  function columnDetails(ds, field) {
    var l = lineageOf(ds, field), h = ["<h3>Column " + esc(field) + "</h3>"];
    function list(title, edges, end) {
      h.push("<div><b>" + title + "</b> (" + edges.length + ')</div><ul class="' + title.toLowerCase().replace(/\W+/g, "-") + '">');
      edges.forEach(function (e) {
        var i = end ? e[2] : e[0], f = end ? e[3] : e[1];
        h.push(dsLink(i, f).replace("</li>", ' <span class="muted">' + esc(transformText(e[5])) + (e[4] >= 0 ? " \u00b7 " + esc(data.jobs[e[4]].name) : "") + "</span></li>"));
      });
      h.push("</ul>");
    }
    list("Upstream", l.up, false);
    list("Downstream", l.down, true);
    if (l.indirect.length) list("Dataset-level inputs", l.indirect, false);
    return h.join("");
  }
  function selectColumn(ds, field) {
    clearMarks();
    if (view.k < LOD) centreOn(data.datasets[ds]);
    var l = lineageOf(ds, field), layer = [];
    mark(colEl(ds, field), "col-selected");
    l.indirect.forEach(function (e) { mark(colEl(e[0], e[1]), "col-indirect"); });
    l.up.forEach(function (e) { mark(colEl(e[0], e[1]), "col-upstream"); });
    l.down.forEach(function (e) { mark(colEl(e[2], e[3]), "col-downstream"); });
    function line(e, cls) {
      var s = data.datasets[e[0]], t = data.datasets[e[2]];
      layer.push('<path class="column-edge ' + cls + '" d="' + edgePath(s.x + W, rowY(e[0], e[1]), t.x, e[3] === null ? mid(t) : rowY(e[2], e[3])) + '"/>');
    }
    l.up.forEach(function (e) { line(e, "upstream"); });
    l.down.forEach(function (e) { line(e, "downstream"); });
    l.indirect.forEach(function (e) { line(e, "indirect"); });
    document.getElementById("column-edges").innerHTML = layer.join("");
    mark(nodeEl("d" + ds), "selected");
    showDataset(ds, field);
  }

  svg.addEventListener("click", function (ev) {
    if (drag && drag.moved) return;
    var col = ev.target.closest(".col[data-col]");
    if (col) {
      var key = col.getAttribute("data-col"), cut = key.indexOf(":");
      selectColumn(+key.slice(0, cut), key.slice(cut + 1));
      return;
    }
    var node = ev.target.closest(".node");
    if (node) selectNode(node.getAttribute("data-node")); else { clearMarks(); }
  });
  panel.addEventListener("click", function (ev) {
    var row = ev.target.closest("[data-ds]");
    if (row) { selectColumn(+row.getAttribute("data-ds"), row.getAttribute("data-field")); return; }
    var link = ev.target.closest("[data-goto]");
    if (!link) return;
    var id = link.getAttribute("data-goto"), n = id[0] === "j" ? data.jobs[+id.slice(1)] : data.datasets[+id.slice(1)];
    centreOn(n);
    if (link.hasAttribute("data-field")) selectColumn(+id.slice(1), link.getAttribute("data-field")); else selectNode(id);
  });

  /* Search: datasets by name, columns by name; Enter jumps to the first hit. */
  var searchMarks = [], hits = [];
  function search(q) {
    searchMarks.forEach(function (m) { m[0].classList.remove(m[1]); });
    searchMarks = []; hits = [];
    q = q.trim().toLowerCase();
    if (!q) return;
    data.datasets.forEach(function (d, i) {
      if (d.label.toLowerCase().indexOf(q) >= 0) hits.push({ ds: i });
      d.columns.forEach(function (c) { if (c[0].toLowerCase().indexOf(q) >= 0) hits.push({ ds: i, field: c[0] }); });
    });
    data.jobs.forEach(function (j, i) { if (j.name.toLowerCase().indexOf(q) >= 0) hits.push({ job: i }); });
    hits.forEach(function (h) {
      var el = h.job !== undefined ? nodeEl("j" + h.job) : h.field !== undefined ? colEl(h.ds, h.field) : nodeEl("d" + h.ds);
      if (el) { el.classList.add("match"); searchMarks.push([el, "match"]); }
    });
    panel.innerHTML = "<h3>" + hits.length + " match(es)</h3><ul>" + hits.slice(0, 200).map(function (h) {
      return h.job !== undefined ? jobLink(h.job) : dsLink(h.ds, h.field);
    }).join("") + "</ul>";
  }
  var searchBox = document.getElementById("search"), timer = null;
  searchBox.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(function () { search(searchBox.value); }, 120); });
  searchBox.addEventListener("keydown", function (ev) {
    if (ev.key !== "Enter") return;
    clearTimeout(timer);
    search(searchBox.value);
    var h = hits[0];
    if (!h) return;
    if (h.job !== undefined) { centreOn(data.jobs[h.job]); selectNode("j" + h.job); }
    else { centreOn(data.datasets[h.ds]); if (h.field !== undefined) selectColumn(h.ds, h.field); else selectNode("d" + h.ds); }
  });
  document.getElementById("fit").addEventListener("click", fit);
  document.getElementById("zoom100").addEventListener("click", function () { view = { x: 20, y: 20, k: 1 }; apply(); });

  draw();
  if (data.skipped) panel.innerHTML += "<h3>Skipped input</h3><pre>" + esc(data.skipped) + "</pre>";
  var e = extent(), r = svg.getBoundingClientRect();
  if (e.w > r.width || e.h > r.height) fit(); else apply();
  drawVisibleRows();
  document.body.setAttribute("data-ready", "true");
})();
