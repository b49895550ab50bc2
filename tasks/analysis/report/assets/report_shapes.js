/* How a record is drawn: judged texts (untrusted), messages, and the method shapes (both orders of a
   --swap item, ChatEval referees, a branch tree). */
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

  /* Whom a message without a recorded addressee went to: a prompt goes to the one agent or the panel; an
     answer goes back to the Commander (DEBATE relays), to the panel (ChatEval), or to the user. */
  function addressee(r, m) {
    var agents = {}, commander = false;
    list(r.transcript).forEach(function (x) {
      if (!isObj(x)) return;
      if (x.role === "commander") commander = true;
      else if (x.role !== "user") agents[str(x.agent || x.role)] = true;
    });
    var names = Object.keys(agents);
    if (m.role === "user" || m.role === "commander") return names.length === 1 ? names[0] : "the panel";
    if (commander) return "Commander";
    return names.length > 1 ? "the panel" : "the user";
  }

  function message(r, m) {
    var who = str(m.agent || m.role || "?");
    var head = el("div", { cls: "msg-head" }, [el("span", { cls: "who", text: who + (m.persona ? " (" + str(m.persona) + ")" : "") })]);
    head.appendChild(el("span", { text: "→ " + (m.to ? str(m.to) : addressee(r, m)) }));
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

  /* ChatEval: one row per referee, what it said at each turn (score or verdict), its final answer. */
  function referees(d, transcript, order) {
    if (!isObj(d.referees) && !isObj(d.final_scores) && !isObj(d.final_verdicts)) return null;
    var names = Object.keys(d.referees || d.final_scores || d.final_verdicts);
    var said = {}, turns = [];
    list(transcript).forEach(function (m) {
      if (!isObj(m) || m.role !== "referee" || m.turn === null || m.turn === undefined) return;
      if (order && m.order && m.order !== order) return;
      var v = isObj(m.score) ? m.score.value : (isObj(m.verdict) ? m.verdict.value : m.verdict);
      (said[str(m.agent)] = said[str(m.agent)] || {})[m.turn] = v;
      if (turns.indexOf(m.turn) < 0) turns.push(m.turn);
    });
    turns.sort(function (a, b) { return a - b; });
    var head = [el("th", { text: "referee" }), el("th", { text: "persona" })];
    turns.forEach(function (t) { head.push(el("th", { text: "turn " + t })); });
    head.push(el("th", { text: d.final_verdicts ? "final verdict" : "final score" }), el("th", { text: "parse" }));
    var t = el("table", { cls: "referees" }, [el("tr", null, head)]);
    names.forEach(function (n) {
      var cells = [el("td", { text: n }), el("td", { text: str((d.referees || {})[n]) })];
      turns.forEach(function (turn) { cells.push(el("td", { text: fmt((said[n] || {})[turn]) })); });
      cells.push(el("td", { text: fmt((d.final_scores || d.final_verdicts || {})[n]) }), el("td", { text: str((d.final_parse_status || {})[n]) }));
      t.appendChild(el("tr", null, cells));
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

  function textNode(label, text, extra) {
    return el("div", { cls: "node" }, [el("b", { text: label }), extra || null, text ? el("pre", { text: str(text) }) : null]);
  }

  function judgedBadge(b) {
    if (isObj(b.verdict)) {
      var scores = isObj(b.scores) ? " (A " + fmt(b.scores.first !== undefined ? b.scores.first : b.scores.A) + ", B " +
        fmt(b.scores.second !== undefined ? b.scores.second : b.scores.B) + ")" : "";
      var badge = verdictBadge(b.verdict); badge.textContent += scores; return badge;
    }
    return scoreBadge(b.score);
  }

  /* Fennec (details.tree): criteria → per criterion a guideline and a judgment → merge → correction. */
  function fennecTree(d, r) {
    var criteria = isObj(d.criteria) ? d.criteria : {};
    var root = el("ul", { cls: "tree" });
    var top = el("li", null, [textNode("criteria writer: " + d.tree.length + " criteria" +
      (criteria.found !== undefined ? " (" + fmt(criteria.found) + " in its answer" + (d.criteria_reasked ? ", asked again" : "") + ")" : ""),
      null, null)]);
    var list = el("ul");
    d.tree.forEach(function (b, i) {
      if (!isObj(b)) return;
      var li = el("li", null, [textNode("branch " + fmt(b.branch !== undefined ? b.branch : i + 1) + ": " + str(b.criterion), null, null)]);
      var ul = el("ul");
      ul.appendChild(el("li", null, [textNode("guideline (1–5)", b.guideline)]));
      var judged = judgedBadge(b);
      ul.appendChild(el("li", null, [textNode("judgment ", b.judgment, judged)]));
      li.appendChild(ul);
      list.appendChild(li);
    });
    var merged = r.score !== null && r.score !== undefined ? "score " + fmt(r.score) : "verdict " + fmt(r.verdict);
    list.appendChild(el("li", null, [textNode("merge → " + merged, r.parse_reason || (isObj(r.verdict_parse) ? r.verdict_parse.reason : ""))]));
    if (isObj(d.correction)) {
      var c = d.correction;
      var box = textNode("correction" + (c.target ? " of " + str(c.target) : "") + (c.why ? ": " + str(c.why) : ""),
        c.corrected, c.corrected ? el("span", { cls: "badge", text: "written by the corrector" }) : null);
      if (c.rescore) box.appendChild(el("div", { cls: "json", text: "re-judged: " + JSON.stringify(c.rescore) }));
      list.appendChild(el("li", null, [box]));
    }
    top.appendChild(list);
    root.appendChild(top);
    return el("div", null, [el("h4", { text: "Fennec branches" }), root]);
  }

  function tree(d, r) {
    if (Array.isArray(d.tree) && d.tree.length) return fennecTree(d, r || {});
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
    var vals = list(r.transcript).filter(function (m) { return isObj(m) && m.role === "scorer" && isObj(m.score); })
      .map(function (m) { return fmt(m.score.value); });
    return vals.length > 1 ? vals.join(" → ") : null;
  }

