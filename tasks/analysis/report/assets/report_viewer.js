/* The transcript viewer: one conversation, or several side by side; plot points and run links. */
  /* ------------------------------------------------------------------ transcript viewer */
  var viewer = document.getElementById("viewer"), body = document.getElementById("viewer-body");
  function closeViewer() {
    viewer.hidden = true;
    if (location.hash.indexOf("#items=") === 0) history.replaceState(null, "", "#items");
  }
  document.getElementById("viewer-close").addEventListener("click", closeViewer);
  document.addEventListener("keydown", function (e) { if (e.key === "Escape") closeViewer(); });

  function conversation(i, withInputs) {
    var r = records[i], row = rows.filter(function (x) { return x.rec === i; })[0];
    var run = runs[row.run];
    var facts = [["run", run.label], ["method", row.method], ["item", r.item_id], ["group", r.group_id],
      [row.pairwise ? "human label" : "human score", row.human], [row.pairwise ? "verdict" : "score", row.score],
      ["parse", [r.parse_status, r.parse_method, isObj(r.verdict_parse) ? r.verdict_parse.method : r.verdict_parse].filter(Boolean).join(" / ")],
      ["how", r.parse_reason], ["Scorer's scores", scoreTrail(r)], ["rounds", r.rounds], ["Critic agreed", r.agreed],
      ["confidence", r.confidence === undefined || r.confidence === null ? null : r.confidence + (isObj(r.details) && r.details.confidence_basis ? " (" + r.details.confidence_basis + ")" : "")],
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
    var conv = el("div", { cls: "conv", "data-rec": String(i) }, [el("h3", { text: run.label + " · " + str(r.item_id) }), box]);
    var d = isObj(r.details) ? r.details : {};
    var shapes = [ordersTable(d), referees(d, r.transcript), tree(d, r)];
    if (isObj(d.orders)) Object.keys(d.orders).forEach(function (k) {
      var inner = isObj(d.orders[k]) && isObj(d.orders[k].details) ? d.orders[k].details : null;
      if (!inner) return;
      [referees(inner, r.transcript, k), tree(inner, d.orders[k])].forEach(function (n) {
        if (n) { n.insertBefore(el("div", { cls: "turn", text: k + " order" }), n.firstChild); shapes.push(n); }
      });
    });
    shapes.forEach(function (n) { if (n) conv.appendChild(n); });
    if (withInputs) conv.appendChild(inputsBlock(r));
    var lastTurn, lastOrder, lastStep, debateRound = 0;
    list(r.transcript).forEach(function (m) {
      if (!isObj(m)) return;
      if (m.relay === "review") { debateRound += 1; conv.appendChild(el("div", { cls: "turn", text: "round " + debateRound + ": the Critic reviews the score" })); }
      if (m.order && m.order !== lastOrder) { debateRound = 0; }
      if (m.order && m.order !== lastOrder) { conv.appendChild(el("div", { cls: "turn", text: str(m.order) + " order" })); lastOrder = m.order; lastTurn = undefined; }
      if (m.turn !== undefined && m.turn !== null && m.turn !== lastTurn) { conv.appendChild(el("div", { cls: "turn", text: "turn " + m.turn })); lastTurn = m.turn; }
      var stepKey = str(m.step) + "|" + str(m.branch);
      if ((m.step || (m.branch !== undefined && m.branch !== null)) && stepKey !== lastStep) {
        conv.appendChild(el("div", { cls: "turn", text: [m.branch !== undefined && m.branch !== null ? "branch " + str(m.branch) : "", str(m.step)].filter(Boolean).join(" · ") }));
        lastStep = stepKey;
      }
      conv.appendChild(message(r, m));
    });
    if (!list(r.transcript).length) conv.appendChild(el("p", { cls: "note", text: "no transcript in this record" }));
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
    history.replaceState(null, "", "#items=" + indexes.join(","));  // a link to this view, to send on
  }

  /* a link made by openRecords (#items=3 or #items=3,19) opens the same view */
  function openFromHash() {
    var match = /^#items=([0-9,]+)$/.exec(location.hash);
    if (!match || !records) return;
    var indexes = match[1].split(",").map(Number).filter(function (i) { return i >= 0 && i < records.length; });
    if (indexes.length) openRecords(indexes);
  }
  window.addEventListener("hashchange", openFromHash);

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

