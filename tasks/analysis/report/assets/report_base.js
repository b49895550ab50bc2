/* Shared by the report's scripts (page.py joins them, in the order of SCRIPTS, inside one function):
   the data, small helpers. Every text from a run goes into the page with textContent, never as HTML. */
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
  function list(v) { return Array.isArray(v) ? v : []; }  // a record's field that should be a list
  function isObj(v) { return v !== null && typeof v === "object" && !Array.isArray(v); }

