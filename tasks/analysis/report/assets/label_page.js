(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("label-data").textContent);
  const storageKey = "debate-eval-labels:" + data.page_id;
  const state = load();

  function load() {
    try {
      const saved = JSON.parse(window.localStorage.getItem(storageKey) || "null");
      if (saved && typeof saved === "object" && saved.labels) return saved;
    } catch (error) { /* storage unavailable or unreadable: start afresh */ }
    return { annotator: "", labels: {} };
  }

  function save() {
    try { window.localStorage.setItem(storageKey, JSON.stringify(state)); } catch (error) { /* private mode */ }
    progress();
  }

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function choicesOf(item) {
    if (item.pairwise) return ["first", "second", "tie"];
    const scale = data.scale;
    if (scale && Number.isInteger(scale[0]) && Number.isInteger(scale[1]) && scale[1] - scale[0] <= 10) {
      const out = [];
      for (let value = scale[0]; value <= scale[1]; value += 1) out.push(value);
      return out;
    }
    return null;
  }

  function setLabel(index, value) {
    const item = data.items[index];
    const entry = { time: new Date().toISOString() };
    if (item.pairwise) entry.verdict = value; else entry.rating = value;
    state.labels[index] = entry;
    save();
    mark(index);
  }

  function mark(index) {
    const card = document.getElementById("item-" + index);
    const entry = state.labels[index];
    card.classList.toggle("done", Boolean(entry));
    const given = entry ? (entry.verdict !== undefined ? entry.verdict : entry.rating) : null;
    for (const button of card.querySelectorAll(".choices button")) {
      button.classList.toggle("chosen", given !== null && String(given) === button.dataset.value);
    }
    const input = card.querySelector(".choices input");
    if (input && given !== null) input.value = String(given);
  }

  function progress() {
    const done = Object.keys(state.labels).length;
    document.getElementById("progress").textContent = done + " of " + data.items.length + " labelled";
  }

  function render(item, index) {
    const card = el("section", "item");
    card.id = "item-" + index;
    const title = el("h2", null, (index + 1) + ". ");
    title.appendChild(el("span", null, item.item_id));
    const meta = [item.aspect, item.system ? "system " + item.system : null].filter(Boolean).join(" · ");
    title.appendChild(el("span", "meta", meta ? "  " + meta : ""));
    card.appendChild(title);
    for (const [name, text] of item.inputs) {
      const block = el("div", "text");
      const head = el("div", "name", name + " ");
      head.appendChild(el("span", "untrusted-tag", "untrusted"));
      block.appendChild(head);
      block.appendChild(el("pre", null, text));
      card.appendChild(block);
    }
    const row = el("div", "choices");
    row.appendChild(el("span", null, item.pairwise ? "your verdict:" : "your rating" + (data.scale ? " (" + data.scale[0] + "-" + data.scale[1] + ")" : "") + ":"));
    const choices = choicesOf(item);
    if (choices) {
      for (const value of choices) {
        const button = el("button", null, value);
        button.type = "button";
        button.dataset.value = String(value);
        button.addEventListener("click", () => setLabel(index, value));
        row.appendChild(button);
      }
    } else {
      const input = el("input");
      input.type = "number";
      input.step = "any";
      if (data.scale) { input.min = String(data.scale[0]); input.max = String(data.scale[1]); }
      input.addEventListener("change", () => {
        const value = Number(input.value);
        const ok = input.value !== "" && Number.isFinite(value) && (!data.scale || (value >= data.scale[0] && value <= data.scale[1]));
        if (ok) setLabel(index, value);
      });
      row.appendChild(input);
    }
    card.appendChild(row);
    const details = el("details");
    details.appendChild(el("summary", null, "the judge's answer (" + item.judged + ") and transcript: open after you label, to judge unprompted"));
    for (const message of item.transcript) {
      const entry = el("div", "msg");
      entry.appendChild(el("strong", null, message[0]));
      entry.appendChild(el("pre", null, message[1]));
      details.appendChild(entry);
    }
    card.appendChild(details);
    return card;
  }

  function lines() {
    const out = [];
    data.items.forEach((item, index) => {
      const entry = state.labels[index];
      if (!entry) return;
      const line = { item_id: item.item_id, aspect: item.aspect };
      if (entry.verdict !== undefined) line.verdict = entry.verdict; else line.rating = entry.rating;
      if (state.annotator) line.annotator = state.annotator;
      line.time = entry.time;
      out.push(JSON.stringify(line) + "\n");
    });
    return out;
  }

  function download() {
    const blob = new Blob(lines(), { type: "application/x-ndjson" });
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = "labels.jsonl";
    document.body.appendChild(link);
    link.click();
    link.remove();
  }

  const main = document.getElementById("items");
  data.items.forEach((item, index) => { main.appendChild(render(item, index)); mark(index); });
  const annotator = document.getElementById("annotator");
  annotator.value = state.annotator || "";
  annotator.addEventListener("input", () => { state.annotator = annotator.value.trim(); save(); });
  document.getElementById("download").addEventListener("click", download);
  document.getElementById("clear").addEventListener("click", () => {
    if (!window.confirm("Forget every label given on this page?")) return;
    state.labels = {};
    save();
    data.items.forEach((item, index) => mark(index));
  });
  progress();
  document.documentElement.setAttribute("data-labels-ready", "1");
})();
