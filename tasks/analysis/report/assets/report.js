/* debate-eval report: the items table (sort, filter, search) and the transcript viewer.
   Every text from a run is put into the page with textContent, never as HTML. */
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var rows = data.rows, runs = data.runs, records = null;
  // Longer messages (prompts with a whole article) show their start and end (where the judged output
  // usually sits) and open fully on demand.
  var LONG = 2400, HEAD = 700, TAIL = 1000;
  var searchText = null;

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else if (k === "cls") node.className = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return node;
  }
  function fmt(v, d) {
    if (v === null || v === undefined || v === "") return "–";
    if (typeof v === "number") return Number.isInteger(v) ? String(v) : v.toFixed(d === undefined ? 2 : d);
    if (typeof v === "boolean") return v ? "yes" : "no";
    return String(v);
  }
  function str(v) { return v === null || v === undefined ? "" : (typeof v === "string" ? v : JSON.stringify(v, null, 1)); }
  function isObj(v) { return v !== null && typeof v === "object" && !Array.isArray(v); }

  /* ------------------------------------------------------------------ items table */
  var columns = [
    { key: "run", label: "run", get: function (r) { return runs[r.run].label; } },
    { key: "id", label: "item" },
    { key: "group", label: "group" },
    { key: "human", label: "human", num: true },
    { key: "score", label: "score / verdict", num: true },
    { key: "err", label: "|score − human|", num: true },
    { key: "agreed", label: "agreement", get: function (r) { return fmt(r.agreed); } },
    { key: "rounds", label: "rounds", num: true },
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
      (r.transcript || []).forEach(function (m) { if (isObj(m)) parts.push(str(m.content)); });
      searchText[i] = parts.join("\n").toLowerCase();
    }
    return searchText[i];
  }

  function filtered() {
    var run = document.getElementById("f-run").value, parse = document.getElementById("f-parse").value;
    var agree = document.getElementById("f-agree").value, minErr = parseFloat(document.getElementById("f-minerr").value);
    var query = document.getElementById("f-search").value.trim().toLowerCase();
    var rounds = document.getElementById("f-rounds").value;
    return rows.filter(function (r) {
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
      tr.addEventListener("click", function () { openRecords([r.rec]); });
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

  /* ------------------------------------------------------------------ transcript viewer */
  var viewer = document.getElementById("viewer"), body = document.getElementById("viewer-body");
  document.getElementById("viewer-close").addEventListener("click", function () { viewer.hidden = true; });
  document.addEventListener("keydown", function (e) { if (e.key === "Escape") viewer.hidden = true; });

  function untrustedBox(label, text) {
    return el("div", { cls: "untrusted" }, [
      el("span", { cls: "untrusted-tag", text: "untrusted" }), " ",
      el("b", { text: label }), el("span", { cls: "note", text: " (text under evaluation; shown as plain text)" }),
      el("pre", { text: str(text) })
    ]);
  }

  function inputsBlock(r) {
    if (!isObj(r.inputs) || !Object.keys(r.inputs).length) {
      return el("p", { cls: "note", text: "The record holds no separate copy of the judged text; it is inside the " +
        "prompts below, which are marked as carrying untrusted text." });
    }
    var keys = Object.keys(r.inputs).filter(function (k) { return str(r.inputs[k]).trim() !== ""; });
    var row = el("div", { cls: "inputs-row" });
    keys.forEach(function (k) { row.appendChild(untrustedBox(k, r.inputs[k])); });
    if (r.inputs_source !== "dataset") return row;
    return el("div", null, [el("p", { cls: "note", text: "The judged texts below are the item's, read from the " +
      "dataset when this report was made (the run stored them inside its prompts only)." }), row]);
  }

  function carriesUntrusted(r, m) {
    var content = str(m.content);
    if (isObj(r.inputs)) {
      return Object.keys(r.inputs).some(function (k) {
        var t = str(r.inputs[k]).trim(); return t.length >= 20 && content.indexOf(t.slice(0, 80)) >= 0;
      });
    }
    return m.role === "user" || m.relay === "task" || m.relay === "review";
  }

  function scoreBadge(score) {
    if (!isObj(score)) return null;
    var ok = score.value !== null && score.value !== undefined;
    var text = ok ? "score " + fmt(score.value) + " (" + str(score.method || score.status) + ")" : "no score: " + str(score.status || "");
    return el("span", { cls: "badge " + (ok ? "score" : "noscore"), text: text, title: str(score.reason) });
  }

  function verdictBadge(v) {
    var value = isObj(v) ? v.value : v;
    var text = value ? "verdict " + str(value) + (isObj(v) && v.method ? " (" + str(v.method) + ")" : "") : "no verdict";
    return el("span", { cls: "badge " + (value ? "score" : "noscore"), text: text, title: isObj(v) ? str(v.reason) : "" });
  }

  function ordersTable(d) {
    if (!isObj(d.orders)) return null;
    var t = el("table", { cls: "referees" }, [el("tr", null, ["order", "verdict as given", "verdict (A/B restored)",
      "parse", "stop", "rounds"].map(function (h) { return el("th", { text: h }); }))]);
    Object.keys(d.orders).forEach(function (k) {
      var o = isObj(d.orders[k]) ? d.orders[k] : {};
      t.appendChild(el("tr", null, [k, o.verdict_as_given, o.verdict, isObj(o.verdict_parse) ? o.verdict_parse.method : o.verdict_parse,
        o.stop_reason, o.rounds].map(function (v) { return el("td", { text: fmt(v) }); })));
    });
    return el("div", null, [el("h4", { text: "Both orders (--swap): the second judges B first; its verdict is mapped back" }), t]);
  }

  function message(r, m) {
    var who = str(m.agent || m.role || "?");
    var head = el("div", { cls: "msg-head" }, [el("span", { cls: "who", text: who + (m.persona ? " (" + str(m.persona) + ")" : "") })]);
    head.appendChild(el("span", { text: "→ " + (m.to ? str(m.to) : (m.role === "user" || m.role === "commander" ? "the panel" : "Commander / all")) }));
    if (m.relay) head.appendChild(el("span", { cls: "badge", text: str(m.relay) }));
    if (m.order) head.appendChild(el("span", { cls: "badge", text: str(m.order) + " order" }));
    var badge = scoreBadge(m.score); if (badge) head.appendChild(badge);
    if (m.verdict) head.appendChild(verdictBadge(m.verdict));
    if (isObj(m.usage)) head.appendChild(el("span", { cls: "badge", text: fmt(m.usage.prompt_tokens) + " + " + fmt(m.usage.completion_tokens) + " tokens" }));
    if (m.cached) head.appendChild(el("span", { cls: "badge", text: "from cache" }));
    var node = el("div", { cls: "msg role-" + str(m.role).replace(/[^a-z_]/gi, "") }, [head]);
    if (carriesUntrusted(r, m)) {
      node.className += " carries-untrusted";
      head.appendChild(el("span", { cls: "untrusted-tag", text: "carries untrusted text" }));
    }
    var content = str(m.content);
    if (content.length > LONG) {
      var pre = el("pre", { text: content.slice(0, HEAD) + "\n[… " + (content.length - HEAD - TAIL) +
        " characters not shown …]\n" + content.slice(content.length - TAIL) });
      var more = el("button", { type: "button", cls: "more", text: "show all " + content.length + " characters" });
      more.addEventListener("click", function () { pre.textContent = content; more.remove(); });
      node.appendChild(pre); node.appendChild(more);
    } else {
      node.appendChild(el("pre", { text: content }));
    }
    return node;
  }

  function referees(d) {
    if (!isObj(d.referees) && !isObj(d.final_scores) && !isObj(d.final_verdicts)) return null;
    var names = Object.keys(d.referees || d.final_scores || d.final_verdicts);
    var t = el("table", { cls: "referees" }, [el("tr", null, [el("th", { text: "referee" }), el("th", { text: "persona" }),
      el("th", { text: d.final_verdicts ? "final verdict" : "final score" }), el("th", { text: "parse" })])]);
    names.forEach(function (n) {
      t.appendChild(el("tr", null, [el("td", { text: n }), el("td", { text: str((d.referees || {})[n]) }),
        el("td", { text: fmt((d.final_scores || d.final_verdicts || {})[n]) }), el("td", { text: str((d.final_parse_status || {})[n]) })]));
    });
    return el("div", null, [el("h4", { text: "ChatEval referees (" + str(d.strategy || "") + ", " + fmt(d.turns) + " turns)" }), t,
      d.excluded && d.excluded.length ? el("p", { cls: "note", text: "excluded: " + str(d.excluded) }) : null]);
  }

  function branchList(d) {
    var keys = ["branches", "criteria", "judgments"];
    for (var i = 0; i < keys.length; i++) if (Array.isArray(d[keys[i]]) && d[keys[i]].length && d[keys[i]].every(isObj)) return d[keys[i]];
    return null;
  }

  function nodeBox(title, obj, skip) {
    var box = el("div", { cls: "node" }, [el("b", { text: title })]);
    Object.keys(obj).forEach(function (k) {
      if (skip.indexOf(k) >= 0) return;
      var v = obj[k];
      if (Array.isArray(v) && v.every(isObj)) return;
      box.appendChild(el("div", null, [el("span", { cls: "note", text: k + ": " }), el("pre", { text: str(v) })]));
    });
    return box;
  }

  function tree(d) {
    var branches = branchList(d);
    if (!branches) return null;
    var root = el("ul", { cls: "tree" });
    var top = el("li", null, [nodeBox("query → " + branches.length + " branches", { method: d.method || "fennec" }, [])]);
    var list = el("ul");
    branches.forEach(function (b, i) {
      var name = str(b.criterion || b.name || b.title || ("branch " + (i + 1)));
      var li = el("li", null, [nodeBox("branch " + (i + 1) + ": " + name, b, ["criterion", "name", "title"])]);
      var sub = Object.keys(b).filter(function (k) { return Array.isArray(b[k]) && b[k].length && b[k].every(isObj); });
      if (sub.length) {
        var ul = el("ul");
        sub.forEach(function (k) { b[k].forEach(function (c, j) { ul.appendChild(el("li", null, [nodeBox(k + " " + (j + 1), c, [])])); }); });
        li.appendChild(ul);
      }
      list.appendChild(li);
    });
    top.appendChild(list);
    ["merge", "merged", "final", "correction", "corrections"].forEach(function (k) {
      if (d[k] !== undefined) list.appendChild(el("li", null, [nodeBox(k, isObj(d[k]) ? d[k] : { value: d[k] }, [])]));
    });
    root.appendChild(top);
    return el("div", null, [el("h4", { text: "Branches" }), root]);
  }

  function scoreTrail(r) {
    var vals = (r.transcript || []).filter(function (m) { return isObj(m) && m.role === "scorer" && isObj(m.score); })
      .map(function (m) { return fmt(m.score.value); });
    return vals.length > 1 ? vals.join(" → ") : null;
  }

  function conversation(i, withInputs) {
    var r = records[i], row = rows.filter(function (x) { return x.rec === i; })[0];
    var run = runs[row.run];
    var facts = [["run", run.label], ["method", row.method], ["item", r.item_id], ["group", r.group_id],
      [row.pairwise ? "human label" : "human score", row.human], [row.pairwise ? "verdict" : "score", row.score],
      ["parse", [r.parse_status, r.parse_method, isObj(r.verdict_parse) ? r.verdict_parse.method : r.verdict_parse].filter(Boolean).join(" / ")],
      ["how", r.parse_reason], ["Scorer's scores", scoreTrail(r)], ["rounds", r.rounds], ["Critic agreed", r.agreed],
      ["stop", r.stop_reason], ["decided by", r.decided_by], ["both orders (--swap)", r.verdicts], ["consistent", r.consistent],
      ["re-asked", r.reasked], ["calls", r.llm_calls], ["error", r.error]];
    var box = el("div", { cls: "facts" });
    facts.forEach(function (f) {
      if (f[1] === null || f[1] === undefined || f[1] === "") return;
      box.appendChild(el("span", null, [el("b", { text: f[0] + ": " }), typeof f[1] === "object" ? str(f[1]) : fmt(f[1])]));
    });
    if (isObj(r.usage)) Object.keys(r.usage).forEach(function (role) {
      var u = r.usage[role] || {};
      box.appendChild(el("span", null, [el("b", { text: role + " tokens: " }), fmt(u.prompt_tokens) + " + " + fmt(u.completion_tokens) + " in " + fmt(u.calls) + " calls"]));
    });
    var conv = el("div", { cls: "conv", "data-rec": String(i) }, [el("h3", { text: run.label + " · " + str(r.item_id) }), box,
      withInputs ? inputsBlock(r) : null]);
    var d = isObj(r.details) ? r.details : {};
    var shapes = [ordersTable(d), referees(d), tree(d)];
    if (isObj(d.orders)) Object.keys(d.orders).forEach(function (k) {
      var inner = isObj(d.orders[k]) && isObj(d.orders[k].details) ? d.orders[k].details : null;
      if (!inner) return;
      [referees(inner), tree(inner)].forEach(function (n) {
        if (n) { n.insertBefore(el("div", { cls: "turn", text: k + " order" }), n.firstChild); shapes.push(n); }
      });
    });
    shapes.forEach(function (n) { if (n) conv.appendChild(n); });
    var lastTurn, lastOrder, debateRound = 0;
    (r.transcript || []).forEach(function (m) {
      if (!isObj(m)) return;
      if (m.relay === "review") { debateRound += 1; conv.appendChild(el("div", { cls: "turn", text: "round " + debateRound + ": the Critic reviews the score" })); }
      if (m.order && m.order !== lastOrder) { debateRound = 0; }
      if (m.order && m.order !== lastOrder) { conv.appendChild(el("div", { cls: "turn", text: str(m.order) + " order" })); lastOrder = m.order; lastTurn = undefined; }
      if (m.turn !== undefined && m.turn !== null && m.turn !== lastTurn) { conv.appendChild(el("div", { cls: "turn", text: "turn " + m.turn })); lastTurn = m.turn; }
      if (m.branch !== undefined && m.branch !== null) conv.appendChild(el("div", { cls: "turn", text: "branch " + str(m.branch) }));
      conv.appendChild(message(r, m));
    });
    if (!(r.transcript || []).length) conv.appendChild(el("p", { cls: "note", text: "no transcript in this record" }));
    if (Object.keys(d).length) conv.appendChild(el("details", null, [el("summary", { text: "method details (raw)" }), el("div", { cls: "json", text: JSON.stringify(d, null, 2) })]));
    return conv;
  }

  function openRecords(indexes) {
    if (!records) return;
    body.textContent = "";
    if (indexes.length > 1) {  // the same item: its texts once, above the runs' conversations
      body.appendChild(el("div", { cls: "shared-inputs" }, [inputsBlock(records[indexes[0]])]));
    }
    var convs = el("div", { cls: "convs" });
    indexes.forEach(function (i) { convs.appendChild(conversation(i, indexes.length === 1)); });
    body.appendChild(convs);
    document.getElementById("viewer-title").textContent = indexes.length > 1 ? "side by side: " + rows[indexes[0]].id : "transcript: " + rows.filter(function (x) { return x.rec === indexes[0]; })[0].id;
    viewer.hidden = false;
    body.scrollTop = 0;
  }

  /* a link to a run's card opens it */
  Array.prototype.forEach.call(document.querySelectorAll("a[href^='#run-']"), function (a) {
    a.addEventListener("click", function () {
      var card = document.getElementById(a.getAttribute("href").slice(1));
      if (card) card.open = true;
    });
  });

  /* plots: a click on a point opens its item */
  Array.prototype.forEach.call(document.querySelectorAll("svg.plot .pt"), function (pt) {
    pt.addEventListener("click", function () {
      var parts = pt.getAttribute("data-key").split("|"), run = Number(parts[0]), key = parts.slice(1).join("|");
      var row = rows.filter(function (r) { return r.run === run && r.key === key; })[0];
      if (row) openRecords([row.rec]);
    });
  });

  /* ------------------------------------------------------------------ side by side */
  function compareTable() {
    var host = document.getElementById("compare-table");
    if (!host) return;
    var single = runs.map(function (r, i) { return i; });  // pairwise and single items never share a key
    var byKey = {};
    rows.forEach(function (r) { if (single.indexOf(r.run) >= 0) (byKey[r.key] = byKey[r.key] || {})[r.run] = r; });
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

  buildHead();
  renderRows();
  compareTable();
  loadRecords().then(function () {
    document.documentElement.setAttribute("data-report-ready", "1");
  });
})();
