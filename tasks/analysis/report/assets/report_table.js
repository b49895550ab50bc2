/* The items table: columns, sorting, filters, text search. */
  /* ------------------------------------------------------------------ items table */
  function errorLabel() {
    var tasks = runs.map(function (r) { return r.task; });
    if (tasks.every(function (t) { return t === "pairwise"; })) return "wrong verdict";
    return tasks.indexOf("pairwise") < 0 ? "|score − human|" : "error (|score − human| or wrong verdict)";
  }
  var columns = [
    { key: "run", label: "run", get: function (r) { return runs[r.run].label; } },
    { key: "id", label: "item" },
    { key: "group", label: "group" },
    { key: "human", label: "human", num: true },
    { key: "score", label: "score / verdict", num: true },
    { key: "err", label: errorLabel(), num: true },
    { key: "agreed", label: "agreement", get: function (r) { return fmt(r.agreed); } },
    { key: "rounds", label: "rounds", num: true },
    { key: "conf", label: "confidence", num: true },
    { key: "parse", label: "parse status" },
    { key: "stop", label: "stop" },
    { key: "tokens", label: "tokens", num: true }
  ];
  if (runs.length < 2) columns.shift();
  var sortKey = null, sortDir = 1;
  var table = document.getElementById("items-table");
  var thead = table.tHead, tbody = table.tBodies[0];

  function value(r, col) { return col.get ? col.get(r) : r[col.key]; }
  function compare(a, b) {
    if (a === b) return 0;
    if (a === null || a === undefined || a === "") return 1;
    if (b === null || b === undefined || b === "") return -1;
    if (typeof a === "number" && typeof b === "number") return a - b;
    return String(a).localeCompare(String(b), undefined, { numeric: true });
  }

  function buildHead() {
    var tr = el("tr");
    columns.forEach(function (col) {
      var th = el("th", { text: col.label, "data-col": col.key });
      if (sortKey === col.key) th.className = sortDir > 0 ? "sorted-asc" : "sorted-desc";
      th.addEventListener("click", function () {
        sortDir = sortKey === col.key ? -sortDir : (col.num ? -1 : 1);
        sortKey = col.key; buildHead(); renderRows();
      });
      tr.appendChild(th);
    });
    thead.textContent = ""; thead.appendChild(tr);
  }

  function recordText(i) {
    if (!searchText) searchText = {};
    if (searchText[i] === undefined) {
      var r = records[i], parts = [str(r.item_id), str(r.group_id), str(r.inputs)];
      list(r.transcript).forEach(function (m) { if (isObj(m)) parts.push(str(m.content)); });
      searchText[i] = parts.join("\n").toLowerCase();
    }
    return searchText[i];
  }

  var selection = null;  // "RUN|KEY" -> true: the records behind a judge card's figure (report_audit.js)
  function filtered() {
    var run = document.getElementById("f-run").value, parse = document.getElementById("f-parse").value;
    var agree = document.getElementById("f-agree").value, minErr = parseFloat(document.getElementById("f-minerr").value);
    var query = document.getElementById("f-search").value.trim().toLowerCase();
    var rounds = document.getElementById("f-rounds").value;
    return rows.filter(function (r) {
      if (selection && !selection[r.run + "|" + r.key]) return false;
      if (run !== "" && String(r.run) !== run) return false;
      if (parse && r.parse !== parse) return false;
      if (rounds !== "" && String(r.rounds) !== rounds) return false;
      if (agree === "yes" && r.agreed !== true) return false;
      if (agree === "no" && r.agreed !== false) return false;
      if (agree === "none" && r.agreed !== null) return false;
      if (!isNaN(minErr) && !(r.err !== null && r.err >= minErr)) return false;
      if (query && records && recordText(r.rec).indexOf(query) < 0) return false;
      if (query && !records && (r.id + " " + r.group).toLowerCase().indexOf(query) < 0) return false;
      return true;
    });
  }

  function renderRows() {
    var shown = filtered();
    if (sortKey) {
      var col = columns.filter(function (c) { return c.key === sortKey; })[0];
      shown.sort(function (a, b) { return sortDir * compare(value(a, col), value(b, col)); });
    }
    tbody.textContent = "";
    var frag = document.createDocumentFragment();
    shown.forEach(function (r) {
      var tr = el("tr", { "data-rec": String(r.rec) });
      columns.forEach(function (col) {
        var v = value(r, col);
        var td = el("td", { text: col.num ? fmt(v) : fmt(v), cls: col.num ? "num" : "" });
        if (col.key === "parse") td.className = "status-" + String(v).replace(/[^a-z_]/gi, "");
        tr.appendChild(td);
      });
      tr.tabIndex = 0;  // rows open with Enter too
      tr.addEventListener("click", function () { openRecords([r.rec]); });
      tr.addEventListener("keydown", function (e) { if (e.key === "Enter") openRecords([r.rec]); });
      frag.appendChild(tr);
    });
    tbody.appendChild(frag);
    document.getElementById("f-count").textContent = shown.length + " of " + rows.length + " shown";
  }

  function fillSelect(id, values, labels) {
    var select = document.getElementById(id);
    values.forEach(function (v, i) { select.appendChild(el("option", { value: String(v), text: labels ? labels[i] : String(v) })); });
  }
  fillSelect("f-run", runs.map(function (_, i) { return i; }), runs.map(function (r) { return r.label; }));
  fillSelect("f-parse", Array.from(new Set(rows.map(function (r) { return r.parse; }))).sort());
  fillSelect("f-rounds", Array.from(new Set(rows.map(function (r) { return r.rounds; }))).filter(function (v) { return v !== null; })
    .sort(function (a, b) { return a - b; }));
  ["f-run", "f-parse", "f-rounds", "f-agree", "f-minerr"].forEach(function (id) {
    document.getElementById(id).addEventListener("input", renderRows);
  });
  var typing = null;  // the text search waits for a pause in typing (it reads every message)
  document.getElementById("f-search").addEventListener("input", function () {
    clearTimeout(typing);
    typing = setTimeout(renderRows, 150);
  });
  if (runs.length < 2) document.getElementById("f-run").parentNode.hidden = true;

