/* Side by side per item, unpacking the gzipped records, and the start. */
  /* ------------------------------------------------------------------ side by side */
  function compareTable() {
    var host = document.getElementById("compare-table");
    if (!host) return;
    var single = runs.map(function (r, i) { return i; });  // pairwise and single items never share a key
    var byKey = {};
    rows.forEach(function (r) { if (single.indexOf(r.run) >= 0) (byKey[r.ckey] = byKey[r.ckey] || {})[r.run] = r; });
    var keys = Object.keys(byKey).filter(function (k) { return Object.keys(byKey[k]).length > 1; });
    var grid = el("table", { id: "compare-grid" }), head = el("tr", null, [el("th", { text: "item" }), el("th", { text: "human" })]);
    single.forEach(function (i) { head.appendChild(el("th", { text: runs[i].label })); });
    head.appendChild(el("th", { text: "closest" }));
    grid.appendChild(el("thead", null, [head]));
    var tb = el("tbody");
    keys.forEach(function (k) {
      var entry = byKey[k], any = entry[Object.keys(entry)[0]], best = null, bestRuns = [];
      single.forEach(function (i) { var e = entry[i] ? entry[i].err : null; if (e !== null && e !== undefined && (best === null || e < best)) best = e; });
      var tr = el("tr", null, [el("td", { text: any.id }), el("td", { cls: "num", text: fmt(any.human) })]);
      single.forEach(function (i) {
        var r = entry[i], td = el("td", { cls: "num", text: r ? fmt(r.score) : "–" });
        if (r && best !== null && r.err === best && !(r.pairwise && best > 0)) { td.className += " best"; bestRuns.push(runs[i].label); }
        tr.appendChild(td);
      });
      var verdict = best === null ? "–" : (bestRuns.length > 1 ? "tie" : bestRuns[0]);
      if (any.pairwise && best !== null && best > 0) verdict = "all wrong";
      tr.appendChild(el("td", { text: verdict }));
      tr.addEventListener("click", function () { openRecords(single.filter(function (i) { return entry[i]; }).map(function (i) { return entry[i].rec; })); });
      tb.appendChild(tr);
    });
    grid.appendChild(tb);
    host.appendChild(el("p", { cls: "note", text: "Per item: each run's score or verdict, the closest to the human one in bold. Click a row to read the transcripts side by side." }));
    host.appendChild(el("div", { cls: "tablewrap" }, [grid]));
  }

  /* ------------------------------------------------------------------ records: gzipped JSON, unpacked here */
  function loadRecords() {
    var status = document.getElementById("records-status");
    if (typeof DecompressionStream !== "function") {
      status.textContent = "This browser cannot unpack the transcripts (it needs DecompressionStream: Chrome 80, " +
        "Firefox 113, Safari 16.4 or later); the tables and plots above are complete.";
      return Promise.resolve();
    }
    var text = atob(document.getElementById("report-records").textContent.trim());
    var bytes = new Uint8Array(text.length);
    for (var i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(function (json) {
      records = JSON.parse(json);
      status.textContent = "";
      renderRows();
    });
  }

  /* A sampled page (a large run): the reader picks the sidecar with every row and record; it replaces the
     sample in the table (the page itself may not fetch files). */
  function gunzipJson(blob) {
    var stream = blob.stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(JSON.parse);
  }
  var itemsFile = document.getElementById("items-file");
  if (itemsFile) itemsFile.addEventListener("change", function () {
    var file = itemsFile.files && itemsFile.files[0], note = document.getElementById("sample-note");
    if (!file) return;
    note.textContent = "loading " + file.name + "…";
    gunzipJson(file).then(function (full) {
      if (!full || !Array.isArray(full.rows) || !Array.isArray(full.records)) throw new Error("not a report's items file");
      rows = full.rows;
      records = full.records;
      renderRows();
      note.textContent = "All " + rows.length + " items loaded from " + file.name + ".";
      document.documentElement.setAttribute("data-items-loaded", String(rows.length));
    }).catch(function (e) { note.textContent = "Could not load " + file.name + ": " + e.message; });
  });

  buildHead();
  renderRows();
  compareTable();
  loadRecords().then(function () {
    openFromHash();
    document.documentElement.setAttribute("data-report-ready", "1");
  });
